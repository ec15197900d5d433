internal import CFFmpeg

/// How much FFmpeg itself prints to stderr. Libraries should not chat: the CLI keeps it quiet
/// unless asked to be verbose.
///
/// FFmpeg often says *why* a call failed only in its log (which codec a container has no tag for,
/// which combination is experimental) and returns a bare EINVAL. `explaining(_:)` keeps the last
/// error-level message logged on the calling thread while a call runs, whatever the print level,
/// so the typed error can carry FFmpeg's reason.
public enum FFmpegLog {
    /// FFmpeg's log levels (`AV_LOG_*`), from silent to chatty.
    public enum Level: Int32, Sendable {
        /// Nothing at all.
        case quiet = -8
        /// Only errors.
        case error = 16
        /// Errors and warnings.
        case warning = 24
        /// Also informational messages (ffmpeg's default).
        case info = 32
        /// Also debugging output.
        case debug = 48
    }

    /// Sets how much FFmpeg prints to stderr, for the whole process: messages less severe than
    /// `level` are not printed (FFmpeg's errors still reach the typed errors' reasons).
    public static func setLevel(_ level: Level) {
        installCallback()
        avp_log_set_level(level.rawValue)
    }

    /// The print level last set by `setLevel` (FFmpeg's default, info, until then). Read here, in
    /// the file that sets it: see `certificateRefusals`.
    static var printLevel: Int32 { avp_log_level() }

    /// How many times a network input's HTTP connection dropped and was reopened where it was
    /// (FFmpeg's reconnect), in this process so far, all jobs together (one input's own count is
    /// `Demuxer.reconnections`). Counted from FFmpeg's log, so only once a level has been set
    /// (`setLevel`), whatever that level is.
    public static var reconnections: Int { Int(avp_reconnect_count()) }

    /// How many times a TLS connection refused a server's certificate, in this process so far.
    /// Installs the callback that counts them. (Read here, in the file that installs the callback:
    /// the shim's static inline functions, and their counters, are emitted once per Swift file.)
    static var certificateRefusals: Int {
        installCallback()
        return Int(avp_certificate_refusal_count())
    }

    /// Runs `body`; returns its outcome and the last error FFmpeg logged meanwhile on this thread.
    static func explaining<R>(_ body: () throws(AVPipelineError) -> R) -> (result: Result<R, AVPipelineError>, reason: String?) {
        // Installed every time (it only sets a pointer): a `static let` of type Void was seen
        // optimized away in release builds, initializer and all.
        installCallback()
        avp_log_capture_begin()
        let result: Result<R, AVPipelineError>
        do { result = .success(try body()) } catch { result = .failure(error) }
        let reason = String(cString: avp_log_capture_end())
        return (result, reason.isEmpty ? nil : reason)
    }

    /// Puts avpipe's callback in FFmpeg's place, with the redactor that hides URL secrets in every
    /// line it prints (`Redaction`). Both are set from this file: the shim's static inline
    /// functions keep their state per Swift file that calls them.
    static func installCallback() {
        avp_log_set_redactor(redactPrintedLine)
        avp_log_install_callback()
    }
}

/// What FFmpeg's log says about one job's connections (a demuxer's input, a muxer's network
/// output), counted for that job alone: run its FFmpeg calls in `attributing`. Here, in the file
/// that installs the callback, because the shim's static inline functions keep their state (the
/// thread's current job) per Swift file.
final class ConnectionLog: @unchecked Sendable {
    // @unchecked: the counters are only read and changed with atomic operations (shim.h).
    private let counters: UnsafeMutablePointer<avp_job_counters>

    init() {
        counters = .allocate(capacity: 1)
        counters.initialize(to: avp_job_counters(reconnections: 0, certificate_refusals: 0))
        FFmpegLog.installCallback()
    }

    deinit { counters.deallocate() }

    /// Times this job's HTTP connection dropped and FFmpeg reopened it where it was.
    var reconnections: Int { Int(avp_job_reconnections(counters)) }
    /// Times a TLS connection of this job refused the server's certificate.
    var certificateRefusals: Int { Int(avp_job_certificate_refusals(counters)) }

    /// Runs `body`, FFmpeg's log lines from this thread meanwhile counted for this job.
    func attributing<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let previous = avp_job_swap(counters)
        defer { avp_job_swap(previous) }
        return try body()
    }
}

/// The redactor FFmpeg's printed lines go through (see `avp_log_print_redacted`).
private let redactPrintedLine: avp_log_redactor = { line, out, size in
    guard let line, let out, size > 0 else { return 0 }
    let text = String(cString: line)
    let redacted = Redaction.redact(text)
    guard redacted != text else { return 0 }
    let bytes = Array(redacted.utf8.prefix(Int(size) - 1))
    bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { out.update(from: $0.baseAddress!, count: $0.count) }
    }
    out[bytes.count] = 0
    return 1
}
