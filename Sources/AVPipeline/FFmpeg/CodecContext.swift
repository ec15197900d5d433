internal import CFFmpeg

/// Owns one `AVCodecContext` (an encoder or a decoder) and speaks its send/receive protocol,
/// turning EAGAIN/EOF into control flow.
final class CodecContext {
    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codec: UnsafePointer<AVCodec>

    init(codec: UnsafePointer<AVCodec>) throws(AVPipelineError) {
        self.codec = codec
        pointer = try allocated(avcodec_alloc_context3(codec))
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = pointer
        avcodec_free_context(&owned)
    }

    func open(options: [String: String] = [:]) throws(AVPipelineError) {
        try withDictionary(options) { dictionary throws(AVPipelineError) in
            try check(avcodec_open2(pointer, codec, dictionary), "avcodec_open2")
        }
    }

    enum SendResult { case accepted, full }
    enum ReceiveResult { case got, needsInput, drained }

    /// Sends a frame to an encoder (`nil` starts draining). `.full` means: receive first.
    func send(frame: UnsafePointer<AVFrame>?) throws(AVPipelineError) -> SendResult {
        let rc = avcodec_send_frame(pointer, frame)
        if rc == averrorEAGAIN { return .full }
        if rc == averrorEOF { return .accepted }
        try check(rc, "avcodec_send_frame")
        return .accepted
    }

    func receive(packet: Packet) throws(AVPipelineError) -> ReceiveResult {
        let rc = avcodec_receive_packet(pointer, packet.pointer)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .drained }
        try check(rc, "avcodec_receive_packet")
        return .got
    }

    /// Sends a packet to a decoder (`nil` starts draining). `.full` means: receive first.
    func send(packet: UnsafePointer<AVPacket>?) throws(AVPipelineError) -> SendResult {
        let rc = avcodec_send_packet(pointer, packet)
        if rc == averrorEAGAIN { return .full }
        if rc == averrorEOF { return .accepted }
        try check(rc, "avcodec_send_packet")
        return .accepted
    }

    func receive(frame: Frame) throws(AVPipelineError) -> ReceiveResult {
        let rc = avcodec_receive_frame(pointer, frame.pointer)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .drained }
        try check(rc, "avcodec_receive_frame")
        return .got
    }
}
