internal import CFFmpeg

/// Re-encodes text subtitles into another text format — MP4's mov_text, Matroska's SubRip or
/// ASS, WebM's WebVTT — through FFmpeg's subtitle decoder and encoder, keeping each cue's time and
/// length. It lets a copy carry subtitles into a container that cannot hold them as they are
/// (`ffmpeg -c copy` gives up there). Styling the target format lacks is lost; the text is not.
public final class SubtitleConverter<Upstream: SampleSource>: SampleSource where Upstream.Buffer == EncodedSubtitlePacket {
    private let sharedFormat: SharedFormat<EncodedSubtitleFormat>
    /// The target format of every cue.
    public var outputFormat: EncodedSubtitleFormat { sharedFormat.value }
    private let upstream: Upstream
    private let decoder: CodecContext
    private let encoder: CodecContext
    /// One cue's encoded bytes; text cues are small, and a longer one is refused by the encoder.
    private var scratch = [UInt8](repeating: 0, count: 1 << 16)

    /// Converts `upstream`'s cues to the text format `codec` (`mov_text`, `subrip`, `webvtt`…).
    ///
    /// Throws `.unsupportedFormat` for picture subtitles, which cannot be converted.
    public init(_ upstream: Upstream, to codec: Codec) throws {
        let input = upstream.outputFormat
        guard input.isText else {
            throw AVPipelineError.unsupportedFormat("\(input.codec) subtitles are pictures: only text subtitles can be converted")
        }
        guard let decoding = avcodec_find_decoder(input.codec.avID) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg has no \(input.codec) decoder")
        }
        guard let encoding = avcodec_find_encoder(codec.avID) else {
            throw AVPipelineError.unsupportedCodec("this FFmpeg has no \(codec) encoder")
        }
        self.upstream = upstream
        decoder = try CodecContext(codec: decoding)
        try check(avcodec_parameters_to_context(decoder.pointer, input.parameters.pointer), "avcodec_parameters_to_context")
        decoder.pointer.pointee.pkt_timebase = input.timeBase.avValue
        try decoder.open()

        encoder = try CodecContext(codec: encoding)
        encoder.pointer.pointee.time_base = input.timeBase.avValue
        // The decoder describes its cues' styles in an ASS header, which the encoder reads; the
        // encoder's context frees its copy.
        if let header = decoder.pointer.pointee.subtitle_header, decoder.pointer.pointee.subtitle_header_size > 0 {
            let size = Int(decoder.pointer.pointee.subtitle_header_size)
            let copy = try allocated(av_mallocz(size + 1)).assumingMemoryBound(to: UInt8.self)
            copy.update(from: header, count: size)
            encoder.pointer.pointee.subtitle_header = copy
            encoder.pointer.pointee.subtitle_header_size = Int32(size)
        }
        try encoder.open()
        var format = EncodedSubtitleFormat(parameters: try CodecParameters(from: encoder.pointer), timeBase: input.timeBase)
        format.metadata = input.metadata
        sharedFormat = SharedFormat(format)
    }

    public func next() async throws -> EncodedSubtitlePacket? {
        while let cue = try await upstream.next() {
            if let converted = try convert(cue.packet) { return EncodedSubtitlePacket(packet: converted, format: sharedFormat) }
        }
        return nil
    }

    /// The cue in the target format, at the input's time and length; nil for a packet that shows
    /// nothing (an empty cue that only clears the screen).
    private func convert(_ packet: Packet) throws(AVPipelineError) -> Packet? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let rc = avcodec_decode_subtitle2(decoder.pointer, &subtitle, &got, packet.pointer)
        guard rc >= 0 else {
            throw .invalidData(path: "subtitles", position: packet.presentationTime(in: upstream.outputFormat.timeBase),
                               reason: "a cue cannot be decoded: \(ffmpegErrorText(rc))")
        }
        guard got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0 else { return nil }
        let size = scratch.withUnsafeMutableBufferPointer { bytes in
            avcodec_encode_subtitle(encoder.pointer, bytes.baseAddress, Int32(bytes.count), &subtitle)
        }
        guard size >= 0 else {
            throw .invalidData(path: "subtitles", position: packet.presentationTime(in: upstream.outputFormat.timeBase),
                               reason: "a cue cannot be written as \(outputFormat.codec): \(ffmpegErrorText(size))")
        }
        let converted = try Packet(copying: Array(scratch[..<Int(size)]))
        converted.pointer.pointee.pts = packet.pointer.pointee.pts
        converted.pointer.pointee.dts = packet.pointer.pointee.pts
        converted.pointer.pointee.duration = packet.pointer.pointee.duration
        converted.pointer.pointee.flags |= avp_pkt_flag_key()
        return converted
    }
}
