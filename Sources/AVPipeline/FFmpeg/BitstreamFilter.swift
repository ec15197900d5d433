internal import CFFmpeg

/// Owns one `AVBSFContext`: one of FFmpeg's bitstream filters (`aac_adtstoasc`, `h264_mp4toannexb`…),
/// which rewrite packet framing without decoding. Speaks the same send/receive protocol as a codec.
final class BitstreamFilter {
    let pointer: UnsafeMutablePointer<AVBSFContext>
    let name: String

    init(name: String, parameters: UnsafePointer<AVCodecParameters>, timeBase: Rational) throws(AVPipelineError) {
        self.name = name
        guard let filter = av_bsf_get_by_name(name) else {
            throw .unsupportedFormat("this FFmpeg build has no '\(name)' bitstream filter")
        }
        var context: UnsafeMutablePointer<AVBSFContext>? = nil
        try check(av_bsf_alloc(filter, &context), "av_bsf_alloc")
        pointer = try allocated(context)
        do {
            try check(avcodec_parameters_copy(pointer.pointee.par_in, parameters), "avcodec_parameters_copy")
            pointer.pointee.time_base_in = timeBase.avValue
            try check(av_bsf_init(pointer), "av_bsf_init")
        } catch {
            var owned: UnsafeMutablePointer<AVBSFContext>? = pointer
            av_bsf_free(&owned)
            throw error
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<AVBSFContext>? = pointer
        av_bsf_free(&owned)
    }

    /// What the filtered stream looks like (the filter may set extradata only after its first packet).
    var outputParameters: UnsafePointer<AVCodecParameters> { UnsafePointer(pointer.pointee.par_out) }
    var outputTimeBase: Rational { Rational(pointer.pointee.time_base_out) }

    /// Hands `packet`'s reference to the filter (`nil` starts draining). A packet the filter rejects
    /// (an ADTS frame with a broken header, say) throws with the filter's name.
    func send(_ packet: Packet?) throws(AVPipelineError) {
        let rc = av_bsf_send_packet(pointer, packet?.pointer)
        if rc == averrorEOF { return }
        try check(rc, "av_bsf_send_packet")
    }

    enum ReceiveResult { case got, needsInput, drained }

    func receive(into packet: Packet) throws(AVPipelineError) -> ReceiveResult {
        let rc = av_bsf_receive_packet(pointer, packet.pointer)
        if rc == averrorEAGAIN { return .needsInput }
        if rc == averrorEOF { return .drained }
        try check(rc, "av_bsf_receive_packet")
        return .got
    }
}
