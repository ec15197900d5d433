extension RecordingSession {
    /// Pictures, with the microphone unless there is none, both on one `CaptureClock`, encoded and
    /// muxed as they arrive.
    func recordMovie(events: (@Sendable (RecordingEvent) -> Void)?) async throws -> RecordingSummary {
        let clock = options.microphone != nil ? CaptureClock() : nil
        // The microphone first: with a clock it starts at once, and the pictures wait for it.
        let asked = microphoneOptions(clock: clock)
        let sound = try asked.map { try DeviceCapture(options: $0, devices: devices!) }
        var pictureOptions = options.pictures!
        pictureOptions.clock = clock
        if let duration = options.duration { pictureOptions.duration = duration }
        let camera = try VideoCapture(options: pictureOptions)
        let soundControl = sound?.control, pictureControl = camera.control
        onStop {
            soundControl?.stop()
            pictureControl.stop()
        }
        let rate = sound?.outputFormat.sampleRate
        let sampler = RecordingStatusSampler(sound: soundControl, sampleRate: rate ?? 48_000, pictures: pictureControl)
        try await reportingStatus(sampler, to: events) {
            try await mux(camera, sound: sound.map { ($0, asked!) }, events: events)
        }
        if pictureControl.statistics.dropped > 0 {
            let statistics = pictureControl.statistics
            events?(.warning("\(statistics.dropped) of \(statistics.captured) pictures were dropped because encoding fell behind the device (try a faster --preset, a lower --fps or a smaller --region)"))
        }
        if let soundControl, let rate, let warning = RecordingMicrophone.overrunWarning(soundControl.statistics, rate: rate) {
            events?(.warning(warning))
        }
        return RecordingSummary(output: output, sound: soundControl?.statistics, soundSampleRate: rate, pictures: pictureControl.statistics)
    }

    /// Encodes the pictures (and the sound) into the output until the devices end.
    private func mux(_ camera: VideoCapture, sound: (capture: DeviceCapture, asked: DeviceCapture.Options)?,
                     events: (@Sendable (RecordingEvent) -> Void)?) async throws {
        let fragmented = [.mp4, .mov].contains(container) && !options.faststart
        var muxerOptions = Muxer.Options(container: container)
        (muxerOptions.fragmented, muxerOptions.fragmentDuration, muxerOptions.overwrite) = (fragmented, options.fragmentDuration, options.overwrite)
        (muxerOptions.hls, muxerOptions.network, muxerOptions.liveInput) = (options.hls, options.network, true)
        let muxer = try Muxer(path: output, options: muxerOptions)
        var encoding = options.liveVideoEncoding
        // Each fragment starts at a keyframe: one at least every fragment.
        if fragmented, encoding.keyframeTimeInterval == nil, encoding.keyframePictureInterval == nil { encoding.keyframeTimeInterval = options.fragmentDuration }
        let encoder = try VideoEncoder(upstream: camera, options: muxer.videoEncoderOptions(encoding))
        for notice in encoder.notices { events?(.notice(notice)) }
        let layout = encoder.encoderInputFormat.pixelFormat
        if !layout.isChroma420 {
            events?(.notice("\(layout) is not 4:2:0: many players and every phone refuse such video (the default, yuv420p, plays everywhere)"))
        }
        // Pictures are encoded in a task of their own, as they arrive, so that waiting for the
        // sound (which a sound server may deliver in blocks, late) never holds the camera's
        // queue up: only encoding too slowly drops pictures. Encoded pictures are small: room
        // for 8 s of them keeps the encoder from waiting for the muxer.
        try muxer.addVideo(encoder.prefetched(capacity: 256, live: true), label: camera.deviceName)
        if let sound {
            try await RecordingMicrophone.feed(sound.capture, asked: sound.asked,
                                               into: SoundTrack(muxer: muxer, bitRate: options.audioBitRate, events: events))
        }
        try await muxer.run()
    }

    /// The sound encoded to AAC as the muxer's audio track.
    private struct SoundTrack: RecordingSoundSink {
        let muxer: Muxer
        let bitRate: Int?
        let events: (@Sendable (RecordingEvent) -> Void)?

        func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer {
            let encoder = try pcm.encodeAAC(.init(bitRate: bitRate))
            if let warning = RecordingMicrophone.loweredWarning(requested: bitRate, encoder: encoder) { events?(.warning(warning)) }
            try muxer.addAudio(encoder, label: "microphone")
        }
    }
}
