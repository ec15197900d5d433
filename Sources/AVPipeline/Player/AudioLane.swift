/// The sound of a playback: decodes the audio track, converts it to the device's format and keeps
/// the device's ring filled between two watermarks (an `AudioPump`, as `AudioRenderer`), recording for the
/// clock which presentation time each stretch of the ring holds. On a seek it empties the ring
/// (device held), starts a fresh resampler (what the old one held is of the old position) and drops
/// decoded buffers of the old position. Owned by its task.
final class AudioLane {
    typealias Decoder = AudioDecoder<DemuxedAudioTrack, AnyAudioCodec>

    private let pump: AudioPump
    private let decoder: Decoder

    init(decoder: Decoder, output: any AudioOutputDevice, volume: Float) {
        self.decoder = decoder
        // 0.2 s of audio, as `AudioRenderer`: enough to ride out a slow picture decode; wake-ups at
        // most 25 ms apart so a seek or a pause is taken up promptly.
        pump = AudioPump(output: output, bufferDuration: 0.2, volume: volume, longestRest: .milliseconds(25))
    }

    var control: PlaybackControl { pump.control }

    /// The device side of the master clock (ffplay's latency estimate: two device buffers).
    var clockSide: PlaybackClock.AudioSide {
        let (feed, bufferFrames) = (pump.feed, pump.output.bufferFrames)
        return PlaybackClock.AudioSide(feed: feed, sampleRate: feed.format.sampleRate, latencyFrames: 2 * bufferFrames,
                                       maximumExtrapolationFrames: 2 * bufferFrames)
    }

    func run(_ session: PlaybackSession) async throws {
        let (pump, feed, control) = (pump, pump.feed, pump.control)
        defer {
            pump.output.close()
            session.recordAudio(decoder.statistics)
        }
        var generation = -1
        var source = try Resample(upstream: decoder, to: feed.format)
        var ended = false
        while true {
            try checkCancellation()
            let now = session.snapshot
            if now.stopped || session.isFinished { return }
            if now.generation != generation {
                if generation >= 0 { control.discardQueued() }
                generation = now.generation
                source = try Resample(upstream: decoder, to: feed.format)
                pump.discardPending()
                ended = false
                feed.reopen()
            }
            if ended {
                if feed.isDrained { session.laneEnded(audio: true, generation: generation) }
                try await pump.rest()
                continue
            }
            if try await pump.wantsBuffer() {
                guard let next = try await source.next() else {
                    pump.finish()
                    ended = true
                    continue
                }
                guard decoder.seekGeneration >= generation else {
                    // Decoded before the seek took effect: of the old position.
                    source = try Resample(upstream: decoder, to: feed.format)
                    continue
                }
                if let time = next.presentationTime {
                    session.clock.audioWritten(atFrame: feed.ring.writtenFrames, time: time.seconds, generation: generation)
                }
                pump.queue(next)
            }
            try await pump.writePending()
        }
    }
}
