internal import CFFmpeg

/// Writes PCM to a WAV file with libavformat's `wav` muxer (WAVE_FORMAT_EXTENSIBLE when the layout
/// needs it, sizes patched at the end). Interleaved sample formats only — WAV has no planar form;
/// put a `Resample` in front (`.resampled(to: .init(sampleFormat: .s16))`) for planar PCM.
/// Sample bytes are not copied: each packet references the PCM buffer's own storage.
public final class WAVWriter<Upstream: SampleSource> where Upstream.Buffer == PCMBuffer {
    private let upstream: Upstream
    private let writer: SingleStreamFileWriter
    private let packet: Packet
    private let format: AudioFormat
    private var framesWritten: Int64 = 0

    /// `headerless`: bare samples (FFmpeg's raw muxer for the format, `s16le`…), no WAV header.
    /// `live` (a recording): written at `path` as audio arrives; the header's sizes are fixed at
    /// the end, and a killed process leaves a header whose sizes say "to the end of the file",
    /// which WAV readers accept.
    public init(upstream: Upstream, path: String, overwrite: Bool = false, headerless: Bool = false, live: Bool = false) throws {
        let format = upstream.outputFormat
        guard !format.sampleFormat.isPlanar else {
            throw AVPipelineError.unsupportedSampleFormat("WAV stores interleaved samples; convert \(format.sampleFormat) to \(format.sampleFormat.packed) first")
        }
        self.upstream = upstream
        self.format = format
        let parameters = try CodecParameters(pcm: format)
        // The raw PCM muxers are named after their codec: pcm_s16le → s16le.
        let muxer = headerless ? String(cString: avcodec_get_name(parameters.codecID)).replacingPrefix("pcm_") : Container.wav.muxerName
        writer = try SingleStreamFileWriter(path: path, muxer: muxer, overwrite: overwrite,
                                            parameters: parameters, timeBase: format.sampleTimeBase, live: live)
        packet = try Packet()
    }

    /// Pulls all PCM from upstream and writes it; the file is complete and in place on return.
    @discardableResult
    public func run(progress: ((MediaTime) -> Void)? = nil) async throws -> WriteSummary {
        while let buffer = try await upstream.next() {
            guard buffer.format == format else {
                throw AVPipelineError.unsupportedSampleFormat("input changed format mid-stream (\(format) → \(buffer.format))")
            }
            try fill(packet, from: buffer)
            // WAV has no timestamps: the position is the number of frames written so far.
            packet.pointer.pointee.pts = framesWritten
            packet.pointer.pointee.dts = framesWritten
            packet.pointer.pointee.duration = Int64(buffer.frameCount)
            framesWritten += Int64(buffer.frameCount)
            try writer.write(packet)
            if let progress, let position = writer.position { progress(position) }
        }
        try checkCancellation()
        return try writer.finish()
    }

    /// Points `packet` at the buffer's interleaved samples, sharing its refcounted storage.
    private func fill(_ packet: Packet, from buffer: PCMBuffer) throws(AVPipelineError) {
        let frame = buffer.frame.pointer
        let byteCount = buffer.frameCount * format.channelCount * format.sampleFormat.bytesPerSample
        if let storage = frame.pointee.buf.0 {
            packet.pointer.pointee.buf = try allocated(av_buffer_ref(storage))
            packet.pointer.pointee.data = frame.pointee.data.0
            packet.pointer.pointee.size = Int32(byteCount)
        } else {
            // A frame without refcounted storage (rare): copy its bytes once.
            try check(av_new_packet(packet.pointer, Int32(byteCount)), "av_new_packet")
            packet.pointer.pointee.data.update(from: frame.pointee.data.0!, count: byteCount)
        }
    }
}

extension CodecParameters {
    /// Parameters of a raw little-endian PCM stream (`pcm_s16le`, `pcm_f32le` …) in `format`.
    convenience init(pcm format: AudioFormat) throws(AVPipelineError) {
        var scratch: UnsafeMutablePointer<AVCodecParameters>? = try allocated(avcodec_parameters_alloc())
        defer { avcodec_parameters_free(&scratch) }
        let p = scratch!
        let codec = av_get_pcm_codec(format.sampleFormat.packed.avValue, 0)
        guard codec != AV_CODEC_ID_NONE else { throw .unsupportedSampleFormat("no PCM codec stores \(format.sampleFormat)") }
        p.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        p.pointee.codec_id = codec
        p.pointee.format = format.sampleFormat.avValue.rawValue
        p.pointee.sample_rate = Int32(format.sampleRate)
        let bits = Int32(format.sampleFormat.bytesPerSample * 8)
        p.pointee.bits_per_coded_sample = bits
        p.pointee.block_align = Int32(format.channelCount) * bits / 8
        p.pointee.bit_rate = Int64(format.sampleRate) * Int64(format.channelCount) * Int64(bits)
        try format.channelLayout.withAVChannelLayout { layout throws(AVPipelineError) in
            try check(av_channel_layout_copy(&p.pointee.ch_layout, layout), "av_channel_layout_copy")
        }
        try self.init(copying: p)
    }
}

private extension String {
    func replacingPrefix(_ prefix: String) -> String { hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self }
}
