internal import CFFmpeg

/// Hooks `AVFormatContext.io_open`, the one call through which a demuxer opens anything besides the
/// input it was given (HLS/DASH segments, image sequence members, MOV external references…).
/// The input itself is opened by `IOContext` before the demuxer runs, so every call that reaches
/// this hook is a nested open: refused unless indirection is allowed, and then only through the
/// policy's protocols (local files by default).
/// Refusals are recorded so the error can name what the input asked for, whatever the demuxer
/// makes of the failure (HLS skips a segment it cannot open and carries on).
///
/// `opaque` of the context points at the guard, unretained: the `InputContext` owns both.
final class NestedOpenGuard {
    /// The protocols a nested open may use; empty when indirection is not allowed.
    private let allowed: Set<String>
    private let defaultOpen: IOOpen?
    /// Written by the hook, read after each read, both on the thread using the context; unchecked:
    /// the runtime's exclusivity check cost more than the rest of a read's own bookkeeping.
    @exclusivity(unchecked) private(set) var refused: [String] = []

    typealias IOOpen = @convention(c) (UnsafeMutablePointer<AVFormatContext>?,
                                       UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                                       UnsafePointer<CChar>?, Int32,
                                       UnsafeMutablePointer<OpaquePointer?>?) -> Int32

    /// Given to every allowed open: what the demuxer does not pass on itself (FFmpeg's HLS
    /// demuxer hands a segment a few HTTP options, never the TLS checks).
    private let options: [String: String]

    /// Installs the guard in `context`, keeping its default `io_open` for allowed opens, each of
    /// which also gets `options`.
    init(installingIn context: UnsafeMutablePointer<AVFormatContext>, allowing protocols: Set<String>,
         options: [String: String] = [:]) {
        allowed = protocols
        self.options = options
        defaultOpen = context.pointee.io_open
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.io_open = { context, pb, url, flags, options in
            guard let context, let opaque = context.pointee.opaque else { return avp_error_eperm() }
            let guardian = Unmanaged<NestedOpenGuard>.fromOpaque(opaque).takeUnretainedValue()
            return guardian.open(context, pb, url, flags, options)
        }
    }

    private func open(_ context: UnsafeMutablePointer<AVFormatContext>,
                      _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                      _ url: UnsafePointer<CChar>?, _ flags: Int32,
                      _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        let name = url.map { String(cString: $0) } ?? ""
        let scheme = url.flatMap { avio_find_protocol_name($0) }.map { String(cString: $0) }
        guard let scheme, allowed.contains(scheme), let defaultOpen else {
            if refused.count < 8 { refused.append(name) }
            return avp_error_eperm()
        }
        guard !self.options.isEmpty else { return defaultOpen(context, pb, url, flags, options) }
        if let options {
            for (key, value) in self.options { av_dict_set(options, key, value, 0) }
            return defaultOpen(context, pb, url, flags, options)
        }
        var own: OpaquePointer? = nil
        defer { av_dict_free(&own) }
        for (key, value) in self.options { av_dict_set(&own, key, value, 0) }
        return defaultOpen(context, pb, url, flags, &own)
    }

    /// Throws `.inputPolicy` when the input asked for anything that was refused.
    func verify(path: String) throws(AVPipelineError) {
        guard let first = refused.first else { return }
        let others = refused.count > 1 ? " and \(refused.count - 1) more" : ""
        let reason = allowed == ["file"]
            ? "it refers to '\(first)'\(others), which is not a local file (network inputs are never opened)"
            : !allowed.isEmpty
            ? "it refers to '\(first)'\(others), which is not read through an allowed protocol (\(allowed.sorted().joined(separator: ",")))"
            : "it refers to another input ('\(first)'\(others)); indirection is not allowed (--allow-indirection)"
        throw .inputPolicy(path: path, reason: reason)
    }
}
