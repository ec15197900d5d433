internal import CFFmpeg

/// FFmpeg's text for an error code (what `av_err2str` gives in C).
func ffmpegErrorText(_ code: Int32) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
        String(cString: avp_err2str(code, buffer.baseAddress!, buffer.count))
    }
}

let averrorEAGAIN = avp_error_eagain()
let averrorEOF = avp_error_eof()

/// The one place a negative FFmpeg return code becomes a typed error naming the failed call.
/// Callers that treat EAGAIN/EOF as control flow test for them before calling this.
@discardableResult
func check(_ code: Int32, _ call: StaticString) throws(AVPipelineError) -> Int32 {
    guard code < 0 else { return code }
    if code == avp_error_enomem() { throw .outOfMemory }
    throw .ffmpeg(call: "\(call)", code: code, message: ffmpegErrorText(code))
}

/// An FFmpeg allocator returned NULL: the only failure those calls have.
func allocated<T>(_ pointer: T?) throws(AVPipelineError) -> T {
    guard let pointer else { throw .outOfMemory }
    return pointer
}
