import AVPipeline
import AVPipelineDevices

/// Where a recording's microphone sound goes: a WAV or AAC writer, or a muxer's audio track.
protocol MicrophoneSoundSink {
    func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer
}

/// The microphone as every recording uses it, sound alone or beside pictures.
enum MicrophoneSound {
    /// Opens the microphone; a missing one is reported with the way out (`hint`).
    static func open(_ options: DeviceCapture.Options, hint: String) throws -> DeviceCapture {
        do {
            return try DeviceCapture(options: options)
        } catch AVPipelineError.deviceUnavailable(.audioInput, let reason) {
            throw AVPipelineError.deviceUnavailable(.audioInput, reason: reason + " (\(hint))")
        }
    }

    /// Hands `capture`'s sound to `sink`: audio lost to an overrun stays in as silence, so the sound
    /// keeps the capture clock, and a device that could not give the rate or channels `asked` for
    /// is converted by libswresample.
    static func feed(_ capture: DeviceCapture, asked: DeviceCapture.Options, into sink: some MicrophoneSoundSink) async throws {
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
        let places = statistics.overruns.prefix(5).map { "at \($0.at) (\(String(format3: $0.lost.seconds)) s)" }.joined(separator: ", ")
        return "\(statistics.overrunCount) audio overrun(s): \(String(format3: lost)) s of audio were lost (kept as silence) because writing fell behind the device: \(places)\(statistics.overrunCount > 5 ? ", …" : "")"
    }
}
