/// What a finished mux produced.
public struct MuxSummary: Sendable {
    /// What one track of the output received.
    public struct Track: Sendable {
        /// "audio", "video" or "subtitle".
        public let kind: String
        /// The codec of the track's packets.
        public let codec: Codec
        /// Packets written.
        public let packets: Int
        /// Payload bytes written (without the container's own).
        public let bytes: Int
        /// End of the track's last packet (presentation time).
        public let end: MediaTime?
    }

    /// The output as named (the playlist, for HLS).
    public let path: String
    /// One per track, in the order they were added.
    public let tracks: [Track]
    /// The longest track's end.
    public let duration: MediaTime?
    /// The most packets the interleaving buffer ever held (never more than one per track).
    public let bufferHighWaterMark: Int
}
