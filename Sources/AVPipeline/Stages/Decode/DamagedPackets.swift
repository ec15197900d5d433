/// What both decoders do with packets the codec rejects: skip them, count them, remember where the
/// first one was, and give up only on a stream that yields nothing but errors (a wrong codec, not
/// damage), after `limit` failures in a row with nothing decoded.
struct DamagedPackets {
    static let limit = 32

    private(set) var skipped = 0
    private(set) var firstSkip: String?
    private var inARow = 0

    /// A packet (or the frame it would have given) was lost to `error`; out-of-memory is not damage.
    mutating func record(_ error: AVPipelineError, at position: MediaTime?) throws(AVPipelineError) {
        if case .outOfMemory = error { throw error }
        skipped += 1
        inARow += 1
        let reason: String
        if case .ffmpeg(_, _, let message) = error { reason = message } else { reason = "\(error)" }
        if firstSkip == nil { firstSkip = position.map { "at \($0): \(reason)" } ?? reason }
    }

    /// Something decoded: the stream is decodable.
    mutating func decoded() { inARow = 0 }

    /// Fails once the stream has given only errors for `limit` packets.
    func check(decodedAnything: Bool, codec: Codec, at position: MediaTime?) throws(AVPipelineError) {
        guard !decodedAnything, inARow >= Self.limit else { return }
        throw .invalidData(path: "\(codec) stream", position: position,
                           reason: "\(inARow) packets in a row failed to decode (\(firstSkip ?? "unknown error"))")
    }

    /// At the end: a stream that never decoded anything but had failures was not decodable.
    func verifyAtEnd(decodedAnything: Bool, codec: Codec) throws(AVPipelineError) {
        guard !decodedAnything, skipped > 0 else { return }
        throw .invalidData(path: "\(codec) stream", position: nil, reason: "no packet could be decoded (\(firstSkip ?? "unknown error"))")
    }
}
