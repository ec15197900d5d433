/// The picture of a playback, in two tasks joined by a queue of a few pictures.
///
/// The decoding half pulls pictures from the video track (converted where the window cannot show
/// the format) and queues them, each tagged with the seek it belongs to; the queue's bound is what
/// decoding may run ahead. The showing half takes them in order and hands each to the window when
/// the master clock reaches its time; one already late by more than a frame duration is dropped
/// instead (ffplay's frame dropping). After a seek both halves discard pictures of the old position,
/// and the first new picture is shown at once, even while paused, so a seek shows where it landed.
final class VideoLane {
    typealias Decoder = VideoDecoder<DemuxedVideoTrack, AnyVideoCodec>

    /// A queued picture, or the end of the stream (`picture` nil), of seek `generation`.
    final class Item {
        let picture: VideoFrame?
        let generation: Int
        init(_ picture: VideoFrame?, generation: Int) {
            self.picture = picture
            self.generation = generation
        }
    }

    /// Pictures decoded ahead of the one being shown.
    static let queueCapacity = 3

    let queue = BoundedHandoff(capacity: queueCapacity)
    private let decoder: Decoder
    private let source: VideoConverter<Decoder>

    init(decoder: Decoder) throws {
        self.decoder = decoder
        let showable = SDLVideoWindow.textureFormat(for: decoder.outputFormat.pixelFormat) != nil
        source = try decoder.converted(VideoConversion(pixelFormat: showable ? nil : .yuv420p))
    }

    var format: VideoFormat { source.outputFormat }

    /// The decoding half (owns the decoder).
    func decode(_ session: PlayerSession) async throws {
        defer {
            queue.finish(.end)
            session.record(decoder.statistics)
        }
        while true {
            try checkCancellation()
            guard await queue.waitForRoom() else { return }
            let asked = session.snapshot.generation
            if session.snapshot.stopped { return }
            if let picture = try await source.next() {
                queue.deliver(OwnershipTransfer(Item(picture, generation: decoder.seekGeneration)))
                continue
            }
            // The end, of the position asked for before the pull (a seek during it makes it stale).
            queue.deliver(OwnershipTransfer(Item(nil, generation: max(asked, decoder.seekGeneration))))
            while session.snapshot.generation == asked {
                if session.isFinished { return }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

/// The showing half of `VideoLane`: paces pictures by the clock and hands them to the window.
struct PictureScheduler {
    let queue: BoundedHandoff
    let window: SDLVideoWindow
    let session: PlayerSession
    /// A frame's duration when pictures do not say (from the stream's rate, else 25 fps).
    let defaultDuration: Double

    func run() async throws {
        // The decoding half may be waiting for room: once nobody shows pictures, it must stop.
        defer { queue.abandon() }
        var generation = -1
        var held: VideoLane.Item?
        var showAtOnce = true
        var lastEnd: Double?
        while true {
            try checkCancellation()
            let now = session.snapshot
            if now.stopped || session.isFinished { return }
            if now.generation != generation {
                (generation, showAtOnce, lastEnd) = (now.generation, true, nil)
                if let item = held, item.generation < generation { held = nil }
            }
            if held == nil {
                guard let next = try await queue.pop() else { return }
                let item = unsafeDowncast(next.value, to: VideoLane.Item.self)
                guard item.generation >= generation else { continue }
                held = item
            }
            guard let picture = held!.picture else {
                // The end: done once the last picture has had its time.
                if showAtOnce || lastEnd.map({ session.clock.now() >= $0 }) ?? true {
                    session.laneEnded(audio: false, generation: generation)
                }
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            let due = picture.presentationTime?.seconds ?? session.clock.now()
            let duration = picture.duration?.seconds ?? defaultDuration
            if showAtOnce {
                window.show(picture)
                session.pictureShown(offset: nil)
                session.clock.startWallClock()
                (held, showAtOnce, lastEnd) = (nil, false, due + duration)
                continue
            }
            if now.paused {
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            let clock = session.clock.now()
            if due - clock > 0.001 {
                try await Task.sleep(for: .microseconds(Int(min(due - clock, 0.02) * 1e6)))
                continue
            }
            held = nil
            lastEnd = due + duration
            if clock - due > duration {
                session.pictureDropped()
                continue
            }
            window.show(picture)
            session.pictureShown(offset: clock - due, late: clock - due > duration / 2)
        }
    }
}
