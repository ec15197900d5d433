import Synchronization

/// A bounded single-producer/single-consumer byte ring for interleaved PCM: the pump writes, the
/// audio device callback reads. Lock-free (two monotonic counters), so the real-time reader never
/// waits for the writer. Reads and writes move whole sample frames only, so channels never shift.
///
/// `@unchecked Sendable`: the storage is shared by exactly two threads with disjoint roles. The
/// producer writes only the free region and then publishes it with a releasing store of
/// `written`; the consumer reads only the published region and frees it with a releasing store of
/// `consumed`. Each side acquires the other's counter before touching bytes, so no byte is read
/// and written concurrently. Calling `write` (or `read`) from two threads at once is a bug.
final class PCMRingBuffer: @unchecked Sendable {
    let capacity: Int
    let bytesPerFrame: Int
    private let storage: UnsafeMutableRawPointer
    private let written = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)

    /// A ring of `capacityFrames` frames of `bytesPerFrame` bytes, allocated once here.
    init(capacityFrames: Int, bytesPerFrame: Int) {
        precondition(capacityFrames > 0 && bytesPerFrame > 0)
        self.bytesPerFrame = bytesPerFrame
        capacity = capacityFrames * bytesPerFrame
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Bytes waiting to be read (from either side, a momentary value).
    var fill: Int { written.load(ordering: .acquiring) - consumed.load(ordering: .acquiring) }

    /// Sample frames ever written / read: positions on one running count, for clocks.
    var writtenFrames: Int { written.load(ordering: .acquiring) / bytesPerFrame }
    var consumedFrames: Int { consumed.load(ordering: .acquiring) / bytesPerFrame }

    /// Drops everything written and not yet read (after a seek). Only while no read can run: the
    /// caller has paused the device, whose callback is the one reader.
    func discardUnread() {
        consumed.store(written.load(ordering: .acquiring), ordering: .releasing)
    }

    /// Producer: copies as many whole frames of `source` as fit; returns the bytes taken.
    func write(_ source: UnsafeRawBufferPointer) -> Int {
        let end = written.load(ordering: .relaxed)
        let free = capacity - (end - consumed.load(ordering: .acquiring))
        let count = Swift.min(free, source.count) / bytesPerFrame * bytesPerFrame
        guard count > 0, let base = source.baseAddress else { return 0 }
        segments(count, at: end % capacity) { ringOffset, sourceOffset, length in
            (storage + ringOffset).copyMemory(from: base + sourceOffset, byteCount: length)
        }
        written.store(end + count, ordering: .releasing)
        return count
    }

    /// Consumer (real-time safe): copies up to `count` bytes (whole frames) into `destination`.
    func read(into destination: UnsafeMutableRawPointer, count maximum: Int) -> Int {
        let start = consumed.load(ordering: .relaxed)
        let available = written.load(ordering: .acquiring) - start
        let count = Swift.min(available, maximum) / bytesPerFrame * bytesPerFrame
        guard count > 0 else { return 0 }
        segments(count, at: start % capacity) { ringOffset, destinationOffset, length in
            (destination + destinationOffset).copyMemory(from: storage + ringOffset, byteCount: length)
        }
        consumed.store(start + count, ordering: .releasing)
        return count
    }

    /// Calls `body(ringOffset, linearOffset, length)` for the one or two contiguous ring segments
    /// that hold `count` bytes starting at ring offset `offset` (two when they wrap around the end).
    @inline(__always)
    private func segments(_ count: Int, at offset: Int, _ body: (Int, Int, Int) -> Void) {
        let first = Swift.min(count, capacity - offset)
        body(offset, 0, first)
        if first < count { body(0, first, count - first) }
    }
}
