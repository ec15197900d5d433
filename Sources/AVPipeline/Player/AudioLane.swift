/// The sound of a playback: decodes the audio track, converts it to the device's format and keeps
/// the device's ring filled between two watermarks (as `AudioRenderer` does), recording for the
/// clock which presentation time each stretch of the ring holds. On a seek it empties the ring
/// (device held), starts a fresh resampler (what the old one held is of the old position) and drops
/// decoded buffers of the old position. Owned by its task.
final class AudioLane {
    typealias Decoder = AudioDecoder<DemuxedAudioTrack, AnyAudioCodec>

    let output: SDLAudioOutput
    let feed: RenderFeed
    let control: PlaybackControl
    private let decoder: Decoder
    private let pollInterval: Duration

    init(decoder: Decoder, device: String?, volume: Float) throws {
        self.decoder = decoder
        output = try SDLAudioOutput(deviceName: device, preferred: decoder.outputFormat)
        let format = output.format
        // 0.2 s of audio, as `AudioRenderer`: enough to ride out a slow picture decode.
        let capacity = max(format.sampleRate / 5, 2 * output.bufferFrames)
        feed = RenderFeed(format: format, capacityFrames: capacity)
        feed.volume = volume
        output.attach(feed)
        control = PlaybackControl(feed: feed, output: output)
        // About four wake-ups per low-watermark period (as `AudioRenderer`), at most 25 ms apart so
        // a seek or a pause is taken up promptly.
        pollInterval = .milliseconds(min(max(capacity / 2 * 1000 / format.sampleRate / 4, 2), 25))
    }

    /// The device side of the master clock (ffplay's latency estimate: two device buffers).
    var clockSide: PlaybackClock.AudioSide {
        PlaybackClock.AudioSide(feed: feed, sampleRate: feed.format.sampleRate, latencyFrames: 2 * output.bufferFrames,
                                maximumExtrapolationFrames: 2 * output.bufferFrames)
    }

    func run(_ session: PlaybackSession) async throws {
        defer {
            output.close()
            session.record(decoder.statistics)
        }
        let ring = feed.ring
        var gate = WatermarkGate(low: ring.capacity / 2, high: ring.capacity)
        var generation = -1
        var source = try Resample(upstream: decoder, to: feed.format)
        var pending: PendingPCM?
        var ended = false
        while true {
            try checkCancellation()
            let now = session.snapshot
            if now.stopped || session.isFinished { return }
            if now.generation != generation {
                if generation >= 0 { control.discardQueued() }
                generation = now.generation
                source = try Resample(upstream: decoder, to: feed.format)
                (pending, ended) = (nil, false)
                feed.reopen()
            }
            if ended {
                if feed.isDrained { session.laneEnded(audio: true, generation: generation) }
                try await rest()
                continue
            }
            if pending == nil {
                guard gate.shouldProduce(fill: ring.fill) else {
                    control.markPrimed()
                    try await rest()
                    continue
                }
                guard let next = try await source.next() else {
                    feed.markEnded()
                    control.markPrimed()
                    ended = true
                    continue
                }
                guard decoder.seekGeneration >= generation else {
                    // Decoded before the seek took effect: of the old position.
                    source = try Resample(upstream: decoder, to: feed.format)
                    continue
                }
                if let time = next.presentationTime {
                    session.clock.audioWritten(atFrame: ring.writtenFrames, time: time.seconds, generation: generation)
                }
                pending = PendingPCM(next)
            }
            let taken = pending!.write(into: ring)
            if pending!.isWritten { pending = nil }
            if taken == 0 {
                _ = gate.shouldProduce(fill: ring.fill)
                control.markPrimed()
                try await rest()
            }
        }
    }

    private func rest() async throws {
        do { try await Task.sleep(for: pollInterval) } catch { throw AVPipelineError.cancelled }
    }
}
