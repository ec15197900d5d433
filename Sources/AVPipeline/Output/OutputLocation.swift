/// Where an output goes, decided once from the name it was given: a file, an HLS stream's folder,
/// or a network address. Every question of the kind "is this a URL", "which scheme", "is it a
/// live stream" about an output (and the URL syntax and scheme table inputs use too) is answered
/// here, so the library and the command line cannot disagree.
///
/// ```swift
/// OutputLocation("rtmp://live.example/app/key").isLiveStream   // true
/// OutputLocation("out/stream.m3u8")                            // .hlsFolder(playlist: "out/stream.m3u8")
/// ```
public enum OutputLocation: Sendable, Equatable, CustomStringConvertible {
    /// A local file (or standard output, a pipe, a device: see `StreamOutput`).
    case file(String)
    /// A local HLS stream: its playlist (`NAME.m3u8`), the segments beside it.
    case hlsFolder(playlist: String)
    /// A network address (`scheme://…`); `scheme` is nil when avpipe does not write to it (the
    /// `Muxer` refuses it by name rather than writing a file of that name).
    case url(String, scheme: NetworkScheme?)

    /// How `name` is read: `scheme://…` is an address, anything else a path (write `./http://x`
    /// for a file whose name starts like one); a path is an HLS folder when `container` (or,
    /// when nil, its extension) says HLS.
    public init(_ name: String, container: Container? = nil) {
        if Self.looksLikeURL(name) {
            self = .url(name, scheme: NetworkScheme(of: name))
        } else if (container ?? Container(path: name)) == .hls {
            self = .hlsFolder(playlist: name)
        } else {
            self = .file(name)
        }
    }

    /// The name as given, secrets and all.
    public var name: String {
        switch self {
        case .file(let path): path
        case .hlsFolder(let playlist): playlist
        case .url(let url, _): url
        }
    }

    /// The name to print: a URL's password, secret parameters and stream key hidden (`Redaction`).
    public var description: String {
        if case .url(let url, _) = self { return Redaction.redactURL(url) }
        return name
    }

    /// Whether it is a network address (written by libavformat's protocols, not as a local file).
    public var isURL: Bool {
        if case .url = self { true } else { false }
    }

    /// The address's scheme, when it is an address avpipe writes to.
    public var scheme: NetworkScheme? {
        if case .url(_, let scheme) = self { scheme } else { nil }
    }

    /// A live stream over one connection (`rtmp://`, `rtmps://`, `srt://`): it is expected in
    /// real time, so a `Muxer` paces it by default (`Muxer.Options.realtime`).
    public var isLiveStream: Bool { scheme?.isLiveStream ?? false }

    /// The URL syntax, shared by inputs and outputs: a scheme (a letter, then letters, digits,
    /// `+`, `-`, `.`) followed by `://`.
    static func looksLikeURL(_ text: String) -> Bool {
        guard let range = text.firstRange(of: "://") else { return false }
        let scheme = text[..<range.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}

/// The network schemes avpipe reads and writes, and the protocols each is built on (FFmpeg's
/// `protocol_whitelist`): an address never leads to a local file or another protocol. The one
/// scheme table, for inputs (`NetworkAddress`) and outputs (`NetworkOutput`) alike.
public enum NetworkScheme: String, Sendable, CaseIterable {
    /// RTMP over TCP: a live FLV stream.
    case rtmp
    /// RTMP over TLS.
    case rtmps
    /// SRT: a live stream (MPEG-TS by default) over UDP.
    case srt
    /// HTTP: read, or an HLS stream uploaded with PUT.
    case http
    /// HTTP over TLS.
    case https

    /// The scheme of `text` when it is one of these (`RTMP://` too), nil for anything else.
    public init?(of text: String) {
        guard OutputLocation.looksLikeURL(text), let end = text.firstRange(of: "://")?.lowerBound,
              let scheme = NetworkScheme(rawValue: text[..<end].lowercased()) else { return nil }
        self = scheme
    }

    /// A live stream over one connection (not a series of requests): it exists only while it is
    /// sent, cannot seek, and is written in real time.
    public var isLiveStream: Bool { isRTMP || self == .srt }

    /// HTTP or HTTPS: a series of requests (an input may reconnect, an output is an upload).
    var isHTTP: Bool { self == .http || self == .https }
    /// RTMP or RTMPS.
    var isRTMP: Bool { self == .rtmp || self == .rtmps }

    /// Whether its connection is TLS (and so checks the server's certificate).
    public var usesTLS: Bool { protocols.contains("tls") }

    /// What a stream to this scheme is written in: FLV over RTMP, MPEG-TS over SRT (as ffmpeg
    /// and SRT receivers expect); nil for HTTP, where the name says (an HLS playlist).
    var impliedContainer: Container? {
        switch self {
        case .rtmp, .rtmps: .flv
        case .srt: .ts
        case .http, .https: nil
        }
    }

    /// The scheme's own protocol and those under it, outermost first.
    var protocols: [String] {
        switch self {
        case .rtmp: ["rtmp", "tcp"]
        case .rtmps: ["rtmps", "tls", "tcp"]
        case .srt: ["srt"]
        case .http: ["http", "tcp"]
        case .https: ["https", "tls", "tcp"]
        }
    }

    /// `protocols` as FFmpeg's `protocol_whitelist` takes them.
    var whitelist: String { protocols.joined(separator: ",") }
}
