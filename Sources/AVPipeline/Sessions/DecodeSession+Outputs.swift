extension DecodeSession {
    /// The sound, from `from`, written to `output` (a notice names a bare-samples file's layout).
    func writeAudio(_ decoder: AudioDecoder<DemuxedAudioTrack, AnyAudioCodec>, to output: String,
                    demuxer: Demuxer, from: MediaTime, meter: TranscodeProgressMeter?,
                    _ send: @escaping @Sendable (TranscodeEvent) -> Void) async throws {
        let format = audioFileFormat ?? (output == "-" ? .wav : Container(path: output))
        // Decoding on one core, conversion and writing on the other (600 s to 48 kHz: 459 → 335 ms).
        let decoded = try decoder.prefetched()
        // A live input is joined mid-stream: the duration counts from its first sample.
        let (summary, written) = if let duration, demuxer.isLive {
            try await write(decoded.lasting(duration).resampled(to: audioFormat), to: output, format: format, meter: meter)
        } else if let duration {
            try await write(decoded.ending(after: duration, from: from).resampled(to: audioFormat), to: output, format: format, meter: meter)
        } else {
            try await write(decoded.resampled(to: audioFormat), to: output, format: format, meter: meter)
        }
        meter?.finish(at: summary.duration, complete: true)
        if format == .pcm {
            let packed = written.sampleFormat.packed
            let raw = packed == .u8 ? "u8" : "\(packed)le"
            send(.notice("\(output): bare \(raw) samples, \(written.sampleRate) Hz, \(written.channelCount) channel(s) (ffplay -f \(raw) -ar \(written.sampleRate) -ch_layout \(written.channelLayout) \(output))"))
        }
        TranscodeMessages.skippedPackets(decoder.statistics, kind: "audio").map(send)
    }

    /// The pictures, to `end`, written to `output` (a notice names a bare-planes file's layout).
    func writePictures(_ decoder: VideoDecoder<DemuxedVideoTrack, AnyVideoCodec>, to output: String,
                       demuxer: Demuxer, end: MediaTime?, meter: TranscodeProgressMeter?,
                       _ send: @escaping @Sendable (TranscodeEvent) -> Void) async throws {
        // … and from its first picture.
        let (summary, written) = if let duration, demuxer.isLive {
            try await write(decoder.lasting(duration), to: output, meter: meter)
        } else if let end {
            try await write(decoder.ending(at: end), to: output, meter: meter)
        } else {
            try await write(decoder, to: output, meter: meter)
        }
        meter?.finish(at: summary.duration, complete: true)
        if Container(path: output) == .rawYUV, let format = written {
            send(.notice("\(output): raw \(format.pixelFormat) \(format.width)x\(format.height) pictures (ffplay -f rawvideo -pixel_format \(format.pixelFormat) -video_size \(format.width)x\(format.height) \(output))"))
        }
        TranscodeMessages.skippedPackets(decoder.statistics, kind: "video").map(send)
    }

    private func write<PCM: SampleSource>(_ pcm: PCM, to path: String, format: Container?,
                                          meter: TranscodeProgressMeter?) async throws -> (WriteSummary, AudioFormat)
    where PCM.Buffer == PCMBuffer {
        let writer = try AudioFileWriter(upstream: pcm, path: path, format: format, overwrite: overwrite)
        return (try await writer.run(progress: meter.map { $0.update }), writer.writtenFormat)
    }

    private func write<Pictures: SampleSource>(_ pictures: Pictures, to path: String,
                                               meter: TranscodeProgressMeter?) async throws -> (WriteSummary, VideoFormat?)
    where Pictures.Buffer == VideoFrame {
        // Standard output gets YUV4MPEG2: it carries the picture format, which raw planes do not.
        let writer = try VideoFrameWriter(upstream: pictures, path: path, container: path == "-" ? .y4m : nil, overwrite: overwrite)
        let summary = try await writer.run(progress: meter.map { $0.update })
        return (summary, writer.writtenFormat)
    }
}
