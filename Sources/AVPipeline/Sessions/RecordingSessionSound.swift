extension RecordingSession {
    /// Sound alone: PCM to a WAV, or AAC in the output's container.
    func recordSound(events: (@Sendable (RecordingEvent) -> Void)?) async throws -> RecordingSummary {
        let asked = microphoneOptions(clock: nil)!
        let capture = try DeviceCapture(options: asked, devices: devices!)
        let control = capture.control
        onStop { control.stop() }
        let rate = capture.outputFormat.sampleRate
        let sampler = RecordingStatusSampler(sound: control, sampleRate: rate, pictures: nil)
        try await reportingStatus(sampler, to: events) {
            try await RecordingMicrophone.feed(capture, asked: asked, into: SoundWriter(session: self, events: events))
        }
        if let warning = RecordingMicrophone.overrunWarning(control.statistics, rate: rate) { events?(.warning(warning)) }
        return RecordingSummary(output: output, sound: control.statistics, soundSampleRate: rate)
    }

    /// The sound to a WAV, or encoded to AAC in the output's container (fragmented unless faststart).
    private struct SoundWriter: RecordingSoundSink {
        let session: RecordingSession
        let events: (@Sendable (RecordingEvent) -> Void)?

        func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer {
            let options = session.options
            if session.container == .wav {
                try await WAVWriter(upstream: pcm, path: session.output, overwrite: options.overwrite, live: true).run()
                return
            }
            let encoder = try pcm.encodeAAC(.init(bitRate: options.audioBitRate))
            if let warning = RecordingMicrophone.loweredWarning(requested: options.audioBitRate, encoder: encoder) { events?(.warning(warning)) }
            var destination = EncodedAudioOutput(path: session.output, container: session.container, overwrite: options.overwrite,
                                                 recording: .init(fragment: options.fragmentDuration, faststart: options.faststart),
                                                 hls: options.hls)
            destination.network = options.network
            try await destination.write(encoder)
        }
    }
}
