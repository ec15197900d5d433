internal import CFFmpeg

/// Where an input's bytes come from. `label` names it in errors.
///
/// Each kind opens its own way in `InputContext`: a local file through the `file` protocol, a buffer
/// in memory through custom AVIO (no temporary file), a URL through its scheme's protocols only
/// (`NetworkAddress`), a capture device by its libavdevice demuxer (`DeviceOpening`). A URL and a
/// capture device are kinds of their own, never a path that happens to work.
enum InputSource: Sendable {
    case file(path: String)
    case memory(name: String, bytes: [UInt8])
    /// A network address (`https://…`, `rtmp://…`), read through its scheme's protocol.
    case url(String)
    /// A capture device (a screen, a camera), read by a libavdevice demuxer.
    case device(DeviceOpening)

    var label: String {
        switch self {
        case .file(let path): path
        case .memory(let name, _): name
        case .url(let url): url
        case .device(let device): device.label
        }
    }

    /// The FFmpeg protocol the input itself is read through; nil for custom I/O and devices.
    var protocolName: String? {
        switch self {
        case .file: "file"
        case .url(let url): url.split(separator: ":", maxSplits: 1).first.map { String($0).lowercased() } ?? url
        case .memory, .device: nil
        }
    }

    /// A regular file (not a pipe, FIFO or device): its bytes can be read in any order, by
    /// several contexts.
    var isRegularFile: Bool {
        guard case .file(let path) = self else { return false }
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// Owns one demuxing `AVFormatContext` (opened with `avformat_open_input`, freed with
/// `avformat_close_input`: input and output contexts are freed differently), the `IOContext` it
/// reads through, and the `NestedOpenGuard` that keeps it from opening anything else.
///
/// Opening follows the `InputPolicy`: we open the bytes ourselves (a file only through the `file`
/// protocol, its path always passed as `file:…` so that a name containing `:` is never read as a
/// protocol or an indirection), recognise the container, refuse demuxers that exist to open other
/// inputs, and only then let the demuxer read its header — with bounded probing, every nested open
/// refused (or limited to local files), and the declared dimensions/channels/rates checked before
/// any decoder or buffer is made for them.
final class InputContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    /// The input's name in errors (its path for a file).
    let path: String
    private let policy: InputPolicy
    /// The address of a network input (nil for a local one): its errors are named from it.
    let network: NetworkAddress?
    /// Counts what FFmpeg logs about this input's connection (HTTP reconnections) for this input
    /// alone: its opens and reads run in `connectionLog.attributing`.
    let connectionLog: ConnectionLog
    private let nestedOpens: NestedOpenGuard
    /// Freed after the format context (custom I/O is never closed by `avformat_close_input`); nil
    /// for a device, which its demuxer opens itself.
    private let io: IOContext?
    /// Where reading the header stopped, before any packet was read.
    private(set) var headerEnd: Int64 = 0

    /// `interrupt` (kept alive by the caller) lets another thread abort blocking calls;
    /// `findStreamInfo: false` skips probing packets, for a second context on an input already probed.
    /// `seeksOverSkippedData`: the file protocol's short-seek threshold is its `blocksize`
    /// (unlimited by default), so AVIO reads *through* every forward gap instead of seeking; a
    /// bounded blocksize makes it seek over the bytes of discarded streams.
    /// `connectionLog`: where what FFmpeg logs about this input's connection is counted (a
    /// demuxer's contexts share one: `Demuxer.reconnections`).
    init(source: InputSource, policy: InputPolicy = .default, interrupt: InterruptFlag? = nil,
         findStreamInfo: Bool = true, seeksOverSkippedData: Bool = false,
         connectionLog: ConnectionLog = ConnectionLog()) throws(AVPipelineError) {
        let path = source.label
        self.connectionLog = connectionLog
        self.path = path
        self.policy = policy
        try policy.validate()
        // A network input is read through its own scheme's protocols (`NetworkAddress`), never the
        // local policy's; a local one only through those the policy names.
        let network: NetworkAddress? = if case .url(let address) = source { try NetworkAddress(address) } else { nil }
        self.network = network
        isRTMPStream = network?.isRTMP ?? false
        if network == nil, let scheme = source.protocolName, !policy.allows(protocol: scheme) {
            throw .inputPolicy(path: path, reason: "it is read through the '\(scheme)' protocol, which the input policy does not allow (\(policy.protocolWhitelist))")
        }
        let whitelist = network.map { $0.protocols.sorted().joined(separator: ",") } ?? policy.protocolWhitelist
        let url: String?
        switch source {
        case .file(let filePath):
            let filePath = InputFileCheck.standardInputAliases.contains(filePath) ? "/dev/stdin" : filePath
            try InputFileCheck.verify(filePath)
            url = "file:" + filePath
            var options = ["protocol_whitelist": policy.protocolWhitelist]
            if seeksOverSkippedData { options["blocksize"] = "65536" }
            io = try IOContext(fileURL: url!, path: path, interrupt: interrupt, options: options)
        case .memory(_, let bytes):
            guard !bytes.isEmpty else { throw .notAMediaFile(path: path, reason: "the input is empty") }
            url = nil
            io = try IOContext(bytes: bytes)
        case .url(let address):
            url = address
            let timeout = policy.networkTimeout
            io = try IOContext(url: address, interrupt: interrupt, options: network!.openOptions(timeout: timeout, whitelist: whitelist,
                                                                                             certificates: policy.certificates)) {
                rc, logged in network!.error(rc, timeout: timeout, logged: logged)
            }
        case .device(let device):
            // The device's demuxer opens it itself: no bytes to probe, nothing else it may open.
            io = nil
            var context: UnsafeMutablePointer<AVFormatContext>? = try allocated(avformat_alloc_context())
            if let interrupt { context!.pointee.interrupt_callback = interrupt.callback }
            nestedOpens = NestedOpenGuard(installingIn: context!, allowing: [])
            pointer = try device.open(&context)
            try verifyLimits()
            return
        }
        let io = self.io!
        let format = try Self.recognise(io, url: url, path: path, policy: policy, interrupt: interrupt, network: network)
        if let network, String(cString: format.pointee.name) == "hls" {
            try RemotePlaylistCheck.verify(network, timeout: policy.networkTimeout, whitelist: whitelist,
                                           certificates: policy.certificates, interrupt: interrupt)
        }

        var context: UnsafeMutablePointer<AVFormatContext>? = try allocated(avformat_alloc_context())
        if let interrupt { context!.pointee.interrupt_callback = interrupt.callback }
        context!.pointee.pb = io.pointer
        // What a network input names is read through its own protocols only, whatever
        // --allow-indirection says (which is about local files).
        let nestedProtocols = network?.nestedProtocols ?? (policy.allowIndirection ? policy.protocols : [])
        let guardian = NestedOpenGuard(installingIn: context!, allowing: nestedProtocols,
                                       options: network?.tlsOptions(policy.certificates) ?? [:])
        nestedOpens = guardian
        let options = ["protocol_whitelist": whitelist, "probesize": "\(policy.probeBytes)",
                       "analyzeduration": "\(policy.analyzeMicroseconds)"]
        // avformat_open_input frees the context when it fails. The open error is thrown inside the
        // closure: a failed open leaves the options unconsumed, and withDictionary would otherwise
        // report them instead of what went wrong.
        try withDictionary(options) { options throws(AVPipelineError) in
            let (outcome, logged) = FFmpegLog.explaining { () -> Int32 in
                connectionLog.attributing { avformat_open_input(&context, url ?? "", format, options) }
            }
            let rc = (try? outcome.get()) ?? avp_error_einval()
            if rc < 0 {
                try guardian.verify(path: path)
                if let network { throw Self.networkFailure(rc, network, policy: policy, logged: logged) }
                throw Self.openError(rc, path: path)
            }
        }
        pointer = try allocated(context)
        // Once `pointer` is set, a throw here runs `deinit`, which closes the context: closing it
        // here as well would free it twice.
        try nestedOpens.verify(path: path)
        try verifyLimits()
        headerEnd = readPosition
        if findStreamInfo { try self.findStreamInfo() }
    }

    /// Convenience for a local file.
    convenience init(path: String, policy: InputPolicy = .default, interrupt: InterruptFlag? = nil,
                     findStreamInfo: Bool = true, seeksOverSkippedData: Bool = false) throws(AVPipelineError) {
        try self.init(source: .file(path: path), policy: policy, interrupt: interrupt,
                      findStreamInfo: findStreamInfo, seeksOverSkippedData: seeksOverSkippedData)
    }

    /// Recognises the container from the first bytes (and the file name), refusing demuxers that
    /// exist to open other inputs unless the policy allows indirection. An HTTP(S) `network` input
    /// may be an HLS playlist, whose segments `NestedOpenGuard` keeps on its own protocols.
    private static func recognise(_ io: IOContext, url: String?, path: String, policy: InputPolicy,
                                  interrupt: InterruptFlag?, network: NetworkAddress?) throws(AVPipelineError) -> UnsafePointer<AVInputFormat> {
        var format: UnsafePointer<AVInputFormat>? = nil
        let (outcome, logged) = FFmpegLog.explaining { () -> Int32 in
            av_probe_input_buffer2(io.pointer, &format, url, nil, 0, UInt32(policy.formatProbeBytes))
        }
        let rc = (try? outcome.get()) ?? avp_error_einval()
        if rc < 0 || format == nil {
            if rc == avp_error_exit() || interrupt?.isRaised == true { throw .cancelled }
            if let network, rc < 0, rc != avp_error_invaliddata() {
                throw network.error(rc, timeout: policy.networkTimeout, logged: logged)
            }
            if rc == avp_error_enomem() { throw .outOfMemory }
            if rc == avp_error_invaliddata() || format == nil {
                throw .notAMediaFile(path: path, reason: "no known container format")
            }
            throw .notAMediaFile(path: path, reason: ffmpegErrorText(rc))
        }
        let name = String(cString: format!.pointee.name)
        let readsPlaylists = network?.isHTTP == true
        let refused = readsPlaylists ? policy.refusedDemuxers.subtracting(["hls"]) : policy.refusedDemuxers
        if !policy.allowIndirection,
           let indirect = name.split(separator: ",").first(where: { refused.contains(String($0)) }) {
            throw .inputPolicy(path: path, reason: "it is read by the '\(indirect)' demuxer, which opens other inputs; indirection is not allowed (--allow-indirection)")
        }
        return format!
    }

    /// Refuses a stream that declares more than the policy allows, before anything is sized for it.
    private func verifyLimits() throws(AVPipelineError) {
        for index in 0..<streamCount {
            let parameters = stream(index).pointee.codecpar.pointee
            switch parameters.codec_type {
            case AVMEDIA_TYPE_VIDEO:
                let limit = Int32(policy.maxVideoDimension)
                if parameters.width > limit || parameters.height > limit || parameters.width < 0 || parameters.height < 0 {
                    throw .exceedsLimits(path: path, reason: "track \(index) declares a \(parameters.width)x\(parameters.height) picture; the limit is \(limit) pixels per side")
                }
            case AVMEDIA_TYPE_AUDIO:
                let channels = Int(parameters.ch_layout.nb_channels)
                if channels > policy.maxChannels || channels < 0 {
                    throw .exceedsLimits(path: path, reason: "track \(index) declares \(channels) channels; the limit is \(policy.maxChannels)")
                }
                if Int(parameters.sample_rate) > policy.maxSampleRate || parameters.sample_rate < 0 {
                    throw .exceedsLimits(path: path, reason: "track \(index) declares a sample rate of \(parameters.sample_rate) Hz; the limit is \(policy.maxSampleRate) Hz")
                }
            default:
                break
            }
        }
    }

    /// Reads (and keeps buffered) the first packets to learn what the header does not say.
    /// The decoders it opens to do so may not allocate pictures beyond the policy's limits
    /// (`max_pixels`); what it discovers is checked against them too.
    func findStreamInfo() throws(AVPipelineError) {
        let side = Int64(policy.maxVideoDimension)
        var perStream = [OpaquePointer?](repeating: nil, count: streamCount)
        defer { for index in perStream.indices { av_dict_free(&perStream[index]) } }
        for index in perStream.indices {
            try check(av_dict_set(&perStream[index], "max_pixels", "\(side * side)", 0), "av_dict_set")
        }
        let infoRC = connectionLog.attributing {
            perStream.withUnsafeMutableBufferPointer { avformat_find_stream_info(pointer, $0.baseAddress) }
        }
        try nestedOpens.verify(path: path)
        if infoRC == avp_error_exit() { throw .cancelled }
        if infoRC < 0, let network { throw Self.networkFailure(infoRC, network, policy: policy, logged: nil) }
        if infoRC < 0 { throw .notAMediaFile(path: path, reason: ffmpegErrorText(infoRC)) }
        try verifyLimits()
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&owned)
    }

    var streamCount: Int { Int(pointer.pointee.nb_streams) }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> {
        pointer.pointee.streams[index]!
    }

    /// The best stream of `type`, or nil when the file has none.
    func bestStream(_ type: AVMediaType) -> Int? {
        let index = av_find_best_stream(pointer, type, -1, -1, nil, 0)
        return index >= 0 ? Int(index) : nil
    }

    /// Container duration, when the container knows it.
    var duration: MediaTime? {
        let value = pointer.pointee.duration
        guard value != avp_nopts_value(), value > 0 else { return nil }
        return MediaTime(value: value, timeBase: Rational(avp_time_base_q()))
    }

    /// Bytes this context has read from its file so far (an I/O statistic, not media bytes).
    var bytesRead: Int64 { pointer.pointee.pb.map { $0.pointee.bytes_read } ?? 0 }

    /// Whether the input can seek (false for a pipe, stdin or a FIFO: it can be read once only).
    var canSeek: Bool { pointer.pointee.pb.map { ($0.pointee.seekable & 1) != 0 } ?? false }

    /// The byte position the demuxer has read up to.
    var readPosition: Int64 {
        guard let pb = pointer.pointee.pb?.pointee else { return 0 }
        return pb.pos - Int64(pb.buf_end - pb.buf_ptr)
    }

    /// Whether reading has hit the end of the input (a read error then means the input was cut).
    var reachedEndOfFile: Bool { pointer.pointee.pb.map { $0.pointee.eof_reached != 0 } ?? false }

    /// Whether the stream table is complete after opening (false for MPEG-TS and the like, which
    /// discover streams while reading and need `avformat_find_stream_info`).
    var headerListsAllStreams: Bool { (pointer.pointee.ctx_flags & avp_fmtctx_noheader()) == 0 }

    var formatName: String { String(cString: pointer.pointee.iformat.pointee.name) }

    /// Reads the next packet into `packet`; false at end of file (or of a live stream: `liveEnd`).
    func read(into packet: Packet) throws(AVPipelineError) -> Bool {
        let started = isRTMPStream ? ContinuousClock.now : nil
        let rc = connectionLog.attributing { av_read_frame(pointer, packet.pointer) }
        if !nestedOpens.refused.isEmpty {
            packet.unref()
            try nestedOpens.verify(path: path)
        }
        if rc == averrorEOF {
            if isRTMPStream && liveEnd == nil { liveEnd = "the server ended it" }
            return false
        }
        if rc == avp_error_exit() { throw .cancelled }
        if rc < 0 {
            if rc == avp_error_enomem() { throw .outOfMemory }
            if let started, avp_errno_of(rc) == EIO, ContinuousClock.now - started >= policy.networkTimeout - .milliseconds(100) {
                liveEnd = "nothing came for \(policy.networkTimeout.secondsText) (--timeout) on a connection the server kept open: its publisher stopped"
                return false
            }
            if let network, Self.isNetworkFailure(rc) { throw network.error(rc, timeout: policy.networkTimeout, logged: nil, opening: false) }
            throw .invalidData(path: path, position: nil, reason: ffmpegErrorText(rc))
        }
        return true
    }

    /// An RTMP(S) stream being played, whose end is told from a lost connection on reading.
    ///
    /// When its publisher stops, a server says so in one of two ways. With a status message
    /// (`NetStream.Play.Stop` or `…UnpublishNotify`: nginx-rtmp's `play_restart`/`publish_notify`),
    /// FFmpeg's rtmp protocol ends the stream (EOF). With a "stream EOF" user control message alone
    /// (nginx-rtmp's default), which FFmpeg ignores, the connection stays open and silent until a
    /// read times out (`rw_timeout`), and FFmpeg reports that as EIO — as it reports a connection
    /// closed or reset under it (a server killed), but at once. So an EIO after a whole timeout of
    /// waiting is the end of the stream; one sooner is a lost connection.
    private let isRTMPStream: Bool

    /// Why a live stream ended (once `read` returned false for it): the server said so, or went
    /// silent with the connection open. nil before, and for other inputs.
    private(set) var liveEnd: String?

    /// A network input that is live: an RTMP or SRT stream, or an HLS playlist without an end
    /// (its duration is unknown). It cannot seek, and is read from where it is when opened.
    var isLive: Bool {
        guard let network else { return false }
        return network.isLiveByScheme || (formatName == "hls" && duration == nil)
    }

    /// Errors that say the connection failed rather than the media (timeouts, resets, refusals).
    private static func isNetworkFailure(_ rc: Int32) -> Bool {
        [ETIMEDOUT, ECONNRESET, ECONNREFUSED, EPIPE, EHOSTUNREACH, ENETUNREACH, EIO, EAGAIN].contains(avp_errno_of(rc))
    }

    /// A failed open of a network input: the connection's fault or, when the bytes came but could
    /// not be read as media, not a media file.
    private static func networkFailure(_ rc: Int32, _ network: NetworkAddress, policy: InputPolicy,
                                       logged: String?) -> AVPipelineError {
        if rc == avp_error_invaliddata() {
            return .notAMediaFile(path: network.url, reason: logged ?? "no known container format")
        }
        return network.error(rc, timeout: policy.networkTimeout, logged: logged)
    }

    static func openError(_ rc: Int32, path: String) -> AVPipelineError {
        if rc == avp_error_exit() { return .cancelled }
        switch avp_errno_of(rc) {
        case ENOENT: return .fileNotFound(path: path)
        case EACCES, EPERM: return .notReadable(path: path, reason: "permission denied")
        case EISDIR: return .notReadable(path: path, reason: "is a directory")
        default:
            if rc == avp_error_invaliddata() { return .notAMediaFile(path: path, reason: "no known container format") }
            if rc == avp_error_enomem() { return .outOfMemory }
            return .notAMediaFile(path: path, reason: ffmpegErrorText(rc))
        }
    }
}

/// What can be said about an input path before FFmpeg sees it, with better words than FFmpeg's.
enum InputFileCheck {
    /// Names that mean standard input, as ffmpeg and most Unix tools take them.
    static let standardInputAliases: Set<String> = ["-", "pipe:", "pipe:0"]

    static func verify(_ path: String) throws(AVPipelineError) {
        if path == "/dev/stdin" && isatty(STDIN_FILENO) == 1 {
            throw .notReadable(path: path, reason: "standard input is a terminal: pipe a media file into it")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path: path) }
            throw .notReadable(path: path, reason: errnoText())
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .notReadable(path: path, reason: "is a directory") }
        if access(path, R_OK) != 0 { throw .notReadable(path: path, reason: "permission denied") }
        if (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0 {
            throw .notAMediaFile(path: path, reason: "the file is empty")
        }
    }
}
