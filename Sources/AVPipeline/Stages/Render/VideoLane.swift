/// The picture of a playback, in two tasks joined by a queue of a few pictures.
///
/// The decoding half pulls pictures from the video track (converted where the window cannot show
/// the format) and queues them, each tagged with the seek it belongs to; the queue's bound is what
/// decoding may run ahead. The showing half takes them in order and hands each to the window when
/// the master clock reaches its time; one already late by more than a frame duration is dropped
/// instead (ffplay's frame dropping). After a seek both halves discard pictures of the old position,
/// and the first new picture is shown at once, even while paused, so a seek shows where it landed.
final class VideoLane<Pictures: SampleSource> where Pictures.Buffer == VideoFrame {
    /// Pictures decoded ahead of the one being shown.
    static var queueCapacity: Int { 3 }

    let queue = BoundedHandoff(capacity: queueCapacity)
    private let source: VideoConverter<Pictures>
    private let seekGeneration: () -> Int
    private let finished: (PlaybackSession) -> Void

    /// `shows` says which pixel formats the window takes as they are (others become YUV 4:2:0);
    /// `seekGeneration` says which seek the pictures pulled so far belong to (the decoder's);
    /// `finished` runs when the lane stops (to record the decoder's statistics).
    init(pictures: Pictures, shows: (PixelFormat) -> Bool, seekGeneration: @escaping () -> Int = { 0 },
         finished: @escaping (PlaybackSession) -> Void = { _ in }) throws {
        let showable = shows(pictures.outputFormat.pixelFormat)
        source = try pictures.converted(VideoConversion(pixelFormat: showable ? nil : .yuv420p))
        self.seekGeneration = seekGeneration
        self.finished = finished
    }

    var format: VideoFormat { source.outputFormat }

    /// The decoding half (owns the pictures' source).
    func decode(_ session: PlaybackSession) async throws {
        defer {
            queue.finish(.end)
            finished(session)
        }
        while true {
            try checkCancellation()
            guard await queue.waitForRoom() else { return }
            let asked = session.snapshot.generation
            if session.snapshot.stopped { return }
            if let picture = try await source.next() {
                queue.deliver(HandedOver(QueuedPicture(picture, generation: seekGeneration())))
                continue
            }
            // The end, of the position asked for before the pull (a seek during it makes it stale).
            queue.deliver(HandedOver(QueuedPicture(nil, generation: max(asked, seekGeneration()))))
            while session.snapshot.generation == asked {
                if session.isFinished { return }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

extension VideoLane {
    /// Starts both halves in `group`: decoding (the lane moves into its task) and showing in
    /// `window`. A failure in either stops the session (see `PlaybackSession.guarded`).
    static func start(_ lane: VideoLane, in group: inout ThrowingTaskGroup<Void, any Error>, window: any PictureWindow,
                      session: PlaybackSession) {
        let frameDuration = lane.format.frameRate.map { Double($0.denominator) / Double($0.numerator) } ?? 0.04
        let scheduler = PictureScheduler(queue: lane.queue, window: window, session: session, defaultDuration: frameDuration)
        let transfer = OwnershipTransfer(lane)
        group.addTask { await PlaybackSession.guarded(session) { try await transfer.value.decode(session) } }
        group.addTask { await PlaybackSession.guarded(session) { try await scheduler.run() } }
    }
}

/// A queued picture, or the end of the stream (`picture` nil), of seek `generation`.
final class QueuedPicture {
    let picture: VideoFrame?
    let generation: Int
    init(_ picture: VideoFrame?, generation: Int) {
        self.picture = picture
        self.generation = generation
    }
}

/// The showing half of `VideoLane`: paces pictures by the clock and hands them to the window.
struct PictureScheduler {
    let queue: BoundedHandoff
    let window: any PictureWindow
    let session: PlaybackSession
    /// A frame's duration when pictures do not say (from the stream's rate, else 25 fps).
    let defaultDuration: Double

    func run() async throws {
        // The decoding half may be waiting for room: once nobody shows pictures, it must stop.
        defer { queue.abandon() }
        var generation = -1
        var held: QueuedPicture?
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
                let item = unsafeDowncast(next.value, to: QueuedPicture.self)
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
                session.clock.startWallClock(at: due)
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
