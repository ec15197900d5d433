internal import CFFmpeg

extension CodecContext {
    /// Sends `frame` to an encoder that has just given every packet it had (`receive` answered
    /// `.needsInput`): refusing input then is an encoder bug, reported rather than retried forever.
    /// Every encoder loop sends its frames through here.
    func sendExpectingRoom(_ frame: Frame) throws(AVPipelineError) {
        guard try send(frame: frame.pointer) == .accepted else {
            throw AVPipelineError.ffmpeg(call: "avcodec_send_frame", code: averrorEAGAIN,
                                         message: "encoder refused input while it had no output")
        }
    }
}
