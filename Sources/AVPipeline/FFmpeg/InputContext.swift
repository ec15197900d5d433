internal import CFFmpeg

/// Owns one demuxing `AVFormatContext` (opened with `avformat_open_input`, freed with
/// `avformat_close_input`: input and output contexts are freed differently).
final class InputContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String

    /// Opens a local file. Only the `file` protocol is allowed, and the path is always passed as
    /// `file:…` so that a name containing `:` is never read as a protocol or an indirection.
    /// `interrupt` (kept alive by the caller) lets another thread abort blocking calls;
    /// `findStreamInfo: false` skips probing packets, for a second context on a file already probed.
    init(path: String, interrupt: InterruptFlag? = nil, findStreamInfo: Bool = true) throws(AVPipelineError) {
        self.path = path
        try InputFileCheck.verify(path)
        var context: UnsafeMutablePointer<AVFormatContext>? = try allocated(avformat_alloc_context())
        if let interrupt { context!.pointee.interrupt_callback = interrupt.callback }
        // avformat_open_input frees the context when it fails.
        let rc = try withDictionary(["protocol_whitelist": "file"]) { options in
            avformat_open_input(&context, "file:" + path, nil, options)
        }
        if rc < 0 { throw Self.openError(rc, path: path) }
        pointer = try allocated(context)
        // Once `pointer` is set, a throw here runs `deinit`, which closes the context: closing it
        // here as well would free it twice.
        if findStreamInfo { try self.findStreamInfo() }
    }

    /// Reads (and keeps buffered) the first packets to learn what the header does not say.
    func findStreamInfo() throws(AVPipelineError) {
        let infoRC = avformat_find_stream_info(pointer, nil)
        if infoRC == avp_error_exit() { throw .cancelled }
        if infoRC < 0 { throw .notAMediaFile(path: path, reason: ffmpegErrorText(infoRC)) }
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

    /// Whether the stream table is complete after opening (false for MPEG-TS and the like, which
    /// discover streams while reading and need `avformat_find_stream_info`).
    var headerListsAllStreams: Bool { (pointer.pointee.ctx_flags & avp_fmtctx_noheader()) == 0 }

    var formatName: String { String(cString: pointer.pointee.iformat.pointee.name) }

    /// Reads the next packet into `packet`; false at end of file.
    func read(into packet: Packet) throws(AVPipelineError) -> Bool {
        let rc = av_read_frame(pointer, packet.pointer)
        if rc == averrorEOF { return false }
        if rc == avp_error_exit() { throw .cancelled }
        if rc < 0 {
            if rc == avp_error_enomem() { throw .outOfMemory }
            throw .invalidData(path: path, position: nil, reason: ffmpegErrorText(rc))
        }
        return true
    }

    private static func openError(_ rc: Int32, path: String) -> AVPipelineError {
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
    static func verify(_ path: String) throws(AVPipelineError) {
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
