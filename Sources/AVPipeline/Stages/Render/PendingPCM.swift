/// A PCM buffer on its way into a device ring, written in as many pieces as the ring has room for
/// (whole sample frames each time): what `AudioPump` is writing.
struct PendingPCM {
    let buffer: PCMBuffer
    private var offset = 0

    init(_ buffer: PCMBuffer) { self.buffer = buffer }

    /// Copies what fits into `ring`; returns the bytes taken (0: the ring is full).
    mutating func write(into ring: PCMRingBuffer) -> Int {
        let start = offset
        let taken = buffer.withUnsafePlane(0) { ring.write(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        offset += taken
        return taken
    }

    /// Whether every byte has gone into the ring.
    var isWritten: Bool { buffer.withUnsafePlane(0) { offset >= $0.count } }
}
