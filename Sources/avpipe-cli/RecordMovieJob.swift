import AVPipeline
import CAllocatorTuning

/// A recording with pictures: a screen or a camera, with the microphone unless `--no-audio`, both
/// on one `CaptureClock`, encoded and muxed as they arrive. Written like an audio recording: an
/// MP4/MOV in fragments under its final name (each starting at a keyframe), so a killed run keeps
/// all but its last fragment; Ctrl-C or SIGTERM stops both devices and completes the file.
struct RecordMovieJob: Sendable {
    let output: String
    let container: Container
    let overwrite: Bool
    /// The microphone, or nil for pictures alone.
    let microphone: DeviceCapture.Options?
    let audioBitrate: Int?
    let pictures: VideoCapture.Options
    let encoding: VideoEncoderOptions
    let fragment: MediaTime
    let faststart: Bool
    let hls: HLSOptions
    let network: NetworkOptions

    func run(graceful: GracefulStop) async throws {
        avp_keep_picture_buffers()
        let clock = microphone != nil ? CaptureClock() : nil
        // The microphone first: with a clock it starts at once, and the pictures wait for it.
        let sound = try microphone.map { options in
            var options = options
            options.clock = clock
            return try MicrophoneSound.open(options, hint: "list the devices with 'avpipe record --list-devices'; --no-audio records pictures alone")
        }
        var pictureOptions = pictures
        pictureOptions.clock = clock
        let camera = try VideoCapture(options: pictureOptions)
        let soundControl = sound?.control, pictureControl = camera.control
        graceful.install {
            soundControl?.stop()
            pictureControl.stop()
        }
        let status = RecordStatusLine(control: soundControl, sampleRate: sound?.outputFormat.sampleRate ?? 48_000, pictures: pictureControl)
        let drawing = Task { await status.keepDrawing() }
        defer { drawing.cancel() }

        let fragmented = [.mp4, .mov].contains(container) && !faststart
        let muxer = try Muxer(path: output, options: .init(container: container, fragmented: fragmented, fragmentDuration: fragment,
                                                           overwrite: overwrite, hls: hls, network: network, liveInput: true))
        var encoding = encoding
        // Each fragment starts at a keyframe: one at least every fragment.
        if fragmented, encoding.keyframeTimeInterval == nil, encoding.keyframePictureInterval == nil { encoding.keyframeTimeInterval = fragment }
        let encoder = try VideoEncoder(upstream: camera, options: muxer.videoEncoderOptions(encoding))
        for notice in encoder.notices { printNotice(notice) }
        let layout = encoder.encoderInputFormat.pixelFormat
        if !layout.isChroma420 {
            printNotice("\(layout) is not 4:2:0: many players and every phone refuse such video (the default, yuv420p, plays everywhere)")
        }
        // Pictures are encoded in a task of their own, as they arrive, so that waiting for the
        // sound (which a sound server may deliver in blocks, late) never holds the camera's
        // queue up: only encoding too slowly drops pictures. Encoded pictures are small: room
        // for 8 s of them keeps the encoder from waiting for the muxer.
        try muxer.addVideo(encoder.prefetched(capacity: 256, live: true), label: camera.deviceName)
        if let sound, let microphone {
            try await MicrophoneSound.feed(sound, asked: microphone, into: SoundTrack(muxer: muxer, bitrate: audioBitrate))
        }
        try await muxer.run()
        drawing.cancel()
        await drawing.value
        status.finish()
        report(pictures: pictureControl.statistics, sound: soundControl?.statistics, rate: sound?.outputFormat.sampleRate ?? 1)
    }

    /// The sound encoded to AAC as the muxer's audio track.
    private struct SoundTrack: MicrophoneSoundSink {
        let muxer: Muxer
        let bitrate: Int?

        func take<PCM: SampleSource>(_ pcm: PCM) async throws where PCM.Buffer == PCMBuffer {
            let encoder = try pcm.encodeAAC(.init(bitRate: bitrate))
            EncodeJob.reportLowered(requested: bitrate, encoder: encoder)
            try muxer.addAudio(encoder, label: "microphone")
        }
    }

    /// Lost pictures and lost sound are never silent.
    private func report(pictures: VideoCapture.Statistics, sound: DeviceCapture.Statistics?, rate: Int) {
        if pictures.dropped > 0 {
            printWarning("\(pictures.dropped) of \(pictures.captured) pictures were dropped because encoding fell behind the device (try a faster --preset, a lower --fps or a smaller --region)")
        }
        if let sound, let warning = MicrophoneSound.overrunWarning(sound, rate: rate) { printWarning(warning) }
    }
}
