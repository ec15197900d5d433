/// The pull loop every encoder shares: frames from its `Feed` into one encoder, packets out, and
/// at the end of the feed a flush (the encoder's delayed packets). What is medium-specific
/// (converting, re-chunking, stamping) is the feed's.
final class EncoderCore<Feed: EncoderFeed> {
    private let encoder: CodecContext
    private let feed: Feed
    private var pending: Packet?
    private var flushSent = false

    /// `encoder` is open and takes the frames `feed` makes.
    init(encoder: CodecContext, feed: Feed) {
        self.encoder = encoder
        self.feed = feed
    }

    /// The next encoded packet, or nil at the end.
    func next() async throws -> Packet? {
        while true {
            try checkCancellation()
            let packet = try pending ?? Packet()
            switch try encoder.receive(packet: packet) {
            case .got:
                pending = nil
                return packet
            case .drained:
                return nil
            case .needsInput:
                pending = packet
            }
            guard !flushSent else { continue }
            if let frame = try await feed.next() {
                try encoder.sendExpectingRoom(frame)
            } else {
                flushSent = true
                _ = try encoder.send(frame: nil)
            }
        }
    }
}
