internal import CFFmpeg

/// FFmpeg's text for an error code (what `av_err2str` gives in C).
func ffmpegErrorText(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
        String(cString: avp_err2str(code, buffer.baseAddress!, buffer.count))
    }
}

// Computed, not stored: a global `let` costs a `swift_once` check on every read (per packet).
var averrorEAGAIN: Int32 { avp_error_eagain() }
var averrorEOF: Int32 { avp_error_eof() }
var averrorEINVAL: Int32 { avp_error_einval() }

/// The one place a negative FFmpeg return code becomes a typed error naming the failed call.
/// Callers that treat EAGAIN/EOF as control flow test for them before calling this.
/// Inlined, so that the success test costs a comparison where it runs once a packet; the error is
/// built out of line.
@discardableResult @inline(__always)
func check(_ code: Int32, _ call: StaticString) throws(AVPipelineError) -> Int32 {
    guard code < 0 else { return code }
    throw ffmpegError(code, call)
}

@inline(never)
private func ffmpegError(_ code: Int32, _ call: StaticString) -> AVPipelineError {
    if code == avp_error_enomem() { return .outOfMemory }
    return .ffmpeg(call: "\(call)", code: code, message: ffmpegErrorText(code))
}

/// An FFmpeg allocator returned NULL: the only failure those calls have.
func allocated<T>(_ pointer: T?) throws(AVPipelineError) -> T {
    guard let pointer else { throw .outOfMemory }
    return pointer
}
