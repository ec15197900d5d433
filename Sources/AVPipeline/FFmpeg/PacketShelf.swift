internal import CFFmpeg

/// Blank `AVPacket`s kept for the next `Packet` to take, so that a steady stream of packets stops
/// allocating them: `av_packet_alloc` + `av_packet_free` cost ~1,700 instructions a packet (an
/// aligned `malloc`), more than the rest of a copy job's per-packet work on our side.
///
/// Bounded: at most `capacity` blank packets (104 bytes each, no payload) wait here; beyond that a
/// packet is freed. The shelf owns the packets on it (they stay reachable: no leak at exit).
enum PacketShelf {
    static let capacity = 64

    private struct Blank: @unchecked Sendable {  // a blank packet belongs to the shelf alone
        let pointer: UnsafeMutablePointer<AVPacket>
    }

    private static let shelf = LockedState<[Blank]>({ var a = [Blank](); a.reserveCapacity(capacity); return a }())

    /// A blank packet from the shelf, or nil when it is empty.
    static func take() -> UnsafeMutablePointer<AVPacket>? {
        shelf.withLock { $0.popLast()?.pointer }
    }

    /// Keeps `packet` (already unreferenced: blank) for reuse; false when the shelf is full.
    static func put(_ packet: UnsafeMutablePointer<AVPacket>) -> Bool {
        shelf.withLock { blanks in
            guard blanks.count < capacity else { return false }
            blanks.append(Blank(pointer: packet))
            return true
        }
    }
}
