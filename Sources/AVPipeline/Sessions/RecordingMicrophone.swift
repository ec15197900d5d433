/// Where a recording's microphone sound goes: a WAV or AAC writer, or a muxer's audio track.
protocol RecordingSoundSink {
    func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer
}

/// The microphone as every recording uses it, sound alone or beside pictures.
enum RecordingMicrophone {
    /// Hands `capture`'s sound to `sink`: audio lost to an overrun stays in as silence, so the sound
    /// keeps the capture clock, and a device that could not give the rate or channels `asked` for
    /// is converted by libswresample.
    static func feed(_ capture: DeviceCapture, asked: DeviceCapture.Options, into sink: some RecordingSoundSink) async throws {
        let device = capture.outputFormat
        let request = AudioFormatRequest(sampleRate: asked.sampleRate.flatMap { $0 == device.sampleRate ? nil : $0 },
                                         channelLayout: asked.channelCount.flatMap {
                                             $0 == device.channelCount ? nil : .default(channelCount: $0) })
        let continuous = capture.fillingGaps(from: .seconds(0))
        if request.sampleRate != nil || request.channelLayout != nil {
            try await sink.take(continuous.resampled(to: request))
        } else {
            try await sink.take(continuous)
        }
    }

    /// Lost audio is never silent: how much and where, or nil when nothing was lost.
    static func overrunWarning(_ statistics: DeviceCapture.Statistics, rate: Int) -> String? {
        guard statistics.overrunCount > 0 else { return nil }
        let lost = Double(statistics.droppedFrames) / Double(rate)
        let places = statistics.overruns.prefix(5).map { "at \($0.at) (\(threeDecimals($0.lost.seconds)) s)" }.joined(separator: ", ")
        return "\(statistics.overrunCount) audio overrun(s): \(threeDecimals(lost)) s of audio were lost (kept as silence) because writing fell behind the device: \(places)\(statistics.overrunCount > 5 ? ", …" : "")"
    }

    /// A bit rate above what AAC-LC carries for the stream was lowered by the encoder: to what.
    static func loweredWarning<PCM>(requested: Int?, encoder: AACEncoder<PCM>) -> String? {
        guard let requested, encoder.bitRate < requested else { return nil }
        let format = encoder.encoderInputFormat
        return "\(requested / 1000) kb/s is more than AAC-LC carries for \(format.channelCount) channel(s) at \(format.sampleRate) Hz; using \(encoder.bitRate / 1000) kb/s"
    }

    /// `value` with exactly three decimals ("0.021"), without Foundation.
    private static func threeDecimals(_ value: Double) -> String {
        let thousandths = Int64((value * 1000).rounded())
        let fraction = "\(abs(thousandths % 1000))"
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
