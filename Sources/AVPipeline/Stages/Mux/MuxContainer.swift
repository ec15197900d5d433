/// The containers the Muxer writes, each one of libavformat's muxers: the ISO-BMFF flavours and
/// Matroska.
public enum MuxContainer: String, Sendable, CaseIterable {
    /// `.mp4` (the `mp4` muxer).
    case mp4
    /// `.m4a`: the iTunes audio flavour (the `ipod` muxer).
    case m4a
    /// `.mov`: QuickTime (the `mov` muxer).
    case mov
    /// `.mkv`/`.mka`: Matroska (the `matroska` muxer).
    case mkv
    /// `.webm`: Matroska restricted to the web's codecs (the `webm` muxer).
    case webm

    var muxerName: String {
        switch self {
        case .mp4: "mp4"
        case .m4a: "ipod"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        }
    }

    /// MP4, M4A and MOV: one index (`moov`), edit lists, `ilst` tags.
    var isISOBMFF: Bool { self == .mp4 || self == .m4a || self == .mov }

    /// Matroska and WebM: written front to back, so they can go to a pipe unfragmented.
    var isMatroska: Bool { self == .mkv || self == .webm }

    /// The extensions `init(path:)` knows, for messages.
    public static let extensionsText = ".mp4, .m4a, .mov, .mkv or .webm"

    /// The container a file name's extension asks for (`x.m4a` → `.m4a`), nil when it names none.
    public init?(path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "mp4", "m4v": self = .mp4
        case "m4a", "m4b": self = .m4a
        case "mov", "qt": self = .mov
        case "mkv", "mka": self = .mkv
        case "webm": self = .webm
        default: return nil
        }
    }
}

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
