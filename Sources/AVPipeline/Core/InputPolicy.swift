/// What opening an input may do. The default is safe for untrusted files: read the one local file
/// (or buffer) given, nothing else, with bounded probing and sane limits on what the file declares.
///
/// Indirection — a container that names other inputs: HLS/DASH playlists, `ffconcat` lists, image
/// sequences, MOV external data references, IMF — is refused unless `allowIndirection` is set.
/// Only the protocols in `protocols` are ever opened (FFmpeg's `protocol_whitelist`), for the input
/// itself and for whatever an allowed playlist names: by default `file` alone, so network protocols
/// are never opened, not even through an allowed playlist. A network input (`Demuxer(url:)`) is read
/// through its own scheme's protocols only (`NetworkAddress`), never `file`, within `networkTimeout`.
public struct InputPolicy: Sendable, Equatable {
    /// Let the input open other local files (playlists, concat lists, image sequences…).
    public var allowIndirection: Bool
    /// The FFmpeg protocols an input, and any input it names, may be read through. Only those in
    /// `readableProtocols` can be named (today `file`: network inputs add theirs there).
    public var protocols: Set<String>
    /// Bytes read to recognise the container (`formatprobesize`).
    public var formatProbeBytes: Int
    /// Bytes `avformat_find_stream_info` may read to learn what the header does not say (`probesize`).
    public var probeBytes: Int
    /// Media time it may read for the same purpose (`analyzeduration`), in microseconds.
    public var analyzeMicroseconds: Int
    /// Largest width or height a video track may declare.
    public var maxVideoDimension: Int
    /// Most channels an audio track may declare.
    public var maxChannels: Int
    /// Highest sample rate an audio track may declare.
    public var maxSampleRate: Int
    /// How long a network input may wait for any answer (connecting, each read) before it fails
    /// as timed out; local files do not use it.
    public var networkTimeout: Duration
    /// How a network input over TLS checks the server's certificate (`https://`, `rtmps://`, and
    /// the segments an https playlist names).
    public var certificates: CertificateCheck

    /// The safe defaults: no indirection, `file` only, 1 MiB to recognise the container, 5 MB or 5 s to
    /// probe, at most 16384 pixels a side, 64 channels and 768 kHz.
    public init(allowIndirection: Bool = false, formatProbeBytes: Int = 1 << 20, probeBytes: Int = 5_000_000,
                analyzeMicroseconds: Int = 5_000_000, maxVideoDimension: Int = 16_384, maxChannels: Int = 64,
                maxSampleRate: Int = 768_000, protocols: Set<String> = ["file"],
                networkTimeout: Duration = .seconds(10), certificates: CertificateCheck = .system) {
        self.allowIndirection = allowIndirection
        self.protocols = protocols
        self.formatProbeBytes = formatProbeBytes
        self.probeBytes = probeBytes
        self.analyzeMicroseconds = analyzeMicroseconds
        self.maxVideoDimension = maxVideoDimension
        self.maxChannels = maxChannels
        self.maxSampleRate = maxSampleRate
        self.networkTimeout = networkTimeout
        self.certificates = certificates
    }

    /// Local files only, no indirection, the limits above.
    public static let `default` = InputPolicy()

    /// The protocols a local input (and what it names) can be read through. A policy may name no
    /// others: a network input (`Demuxer(url:)`) uses its own scheme's protocols instead, never these.
    public static let readableProtocols: Set<String> = ["file"]

    /// `protocols` as FFmpeg's `protocol_whitelist` option: the one place it is written, for the
    /// input's own I/O and for the demuxer (which applies it to every nested open).
    var protocolWhitelist: String { protocols.sorted().joined(separator: ",") }

    /// Whether an input read through `scheme` may be opened (a nested one as well).
    func allows(protocol scheme: String) -> Bool { protocols.contains(scheme) }

    /// Demuxers whose only job is to open other inputs. Refused by name before their header is read
    /// (the concat demuxer opens its entries through contexts of its own, which no `io_open` hook on
    /// ours would see); every other nested open is refused by `NestedOpenGuard`.
    static let indirectDemuxers: Set<String> = ["concat", "hls", "dash", "imf", "image2", "sdp", "rtp", "rtsp", "sap"]

    /// The demuxers refused by name when indirection is not allowed. Only tests change it: emptied,
    /// it shows that the `io_open` guard alone still stops a playlist.
    var refusedDemuxers: Set<String> = InputPolicy.indirectDemuxers

    func validate() throws(AVPipelineError) {
        func positive(_ value: Int, _ name: String, max: Int = Int(Int32.max)) throws(AVPipelineError) {
            guard value > 0, value <= max else {
                throw .invalidOption(name: name, value: "\(value)", reason: "must be between 1 and \(max)")
            }
        }
        try positive(formatProbeBytes, "format probe bytes")
        try positive(probeBytes, "probe bytes", max: Int(Int64.max))
        try positive(analyzeMicroseconds, "analyze duration", max: Int(Int64.max))
        try positive(maxVideoDimension, "max video dimension", max: 1 << 15)
        try positive(maxChannels, "max channels", max: 512)
        try positive(maxSampleRate, "max sample rate")
        guard networkTimeout > .zero, networkTimeout <= .seconds(86_400) else {
            throw .invalidOption(name: "timeout", value: "\(networkTimeout)", reason: "must be more than 0 and at most a day")
        }
        let unknown = protocols.subtracting(Self.readableProtocols)
        guard protocols.isEmpty == false, unknown.isEmpty else {
            throw .invalidOption(name: "input protocols", value: protocols.sorted().joined(separator: ","),
                                 reason: "the protocols an input may be read through are \(Self.readableProtocols.sorted().joined(separator: ", "))")
        }
    }
}
