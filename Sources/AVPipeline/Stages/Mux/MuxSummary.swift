/// What a finished mux produced.
public struct MuxSummary: Sendable {
    public struct Track: Sendable {
        public let kind: String
        public let codec: Codec
        public let packets: Int
        public let bytes: Int
        /// End of the track's last packet (presentation time).
        public let end: MediaTime?
    }

    public let path: String
    public let tracks: [Track]
    /// The longest track's end.
    public let duration: MediaTime?
    /// The most packets the interleaving buffer ever held (never more than one per track).
    public let bufferHighWaterMark: Int
}
