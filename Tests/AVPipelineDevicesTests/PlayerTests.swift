import AVPipeline
import AVPipelineDevices
import Foundation
import Testing
import TestSupport

/// The library's `Player` and `VideoRenderer`, with a real window on a private X server. (The
/// process's DISPLAY is pointed at it while the window opens: SDL reads it then.) Run in-process,
/// beside suites whose blocking calls can hold the concurrency pool's threads for many seconds,
/// so they wait generously and check counts rather than timings.
@Suite(.serialized) struct PlayerTests {
    @Test(.needsDisplay) func aVideoOnlyPlayerPausesSeeksAndEndsFromAnyTask() async throws {
        let server = try XvfbServer.started()
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        // SDL connects to the display while the window opens; the rest of the suite must not see it.
        let player = try Self.withEnvironment(["DISPLAY": server.display]) { try Player(path: clip, options: .init(playsAudio: false)) }
        #expect(player.showsVideo && !player.playsAudio)
        let began = Date()
        let steering = Task {
            // Steered by the player's own position, not by sleeps: the suite shares two cores, and
            // other suites' blocking calls can hold the concurrency pool's threads for long (under
            // ThreadSanitizer, minutes were seen).
            while player.position.seconds < 0.5 {
                guard Date().timeIntervalSince(began) < 600 else { throw TestFailure("the position never reached 0.5 s") }
                try await Task.sleep(for: .milliseconds(10))
            }
            player.pause()
            let held = player.position
            try await Task.sleep(for: .milliseconds(500))
            let stillHeld = player.position
            player.resume()
            try player.seek(to: .seconds(3))  // the pictures between are skipped
            return (held, stillHeld)
        }
        let statistics = try await player.run()
        let elapsed = Date().timeIntervalSince(began)
        let (held, stillHeld) = try await steering.value
        #expect(held == stillHeld, "paused, the position holds")
        #expect(elapsed > 1.9, "0.5 s played, 0.5 s paused, 1 s after the seek: \(elapsed) s")
        #expect(player.position.seconds > 3.9, "ends at the end: \(player.position)")
        // Every picture from 3 s to 4 s, shown or (late) dropped, plus at most those up to the
        // pause (under load some are still queued when the seek makes them stale).
        let handled = statistics.picturesShown + statistics.picturesDropped
        #expect(handled >= 30 && handled <= Int(held.seconds * 30) + 1 + 30 + 3, "\(handled) pictures shown or dropped: \(statistics)")
        await #expect(throws: AVPipelineError.self) { try await player.run() }
    }

    /// Any source of pictures shows in a window at its own pace: 2 s of pictures take 2 s, and
    /// each is shown or (late, under load) dropped.
    @Test(.needsDisplay) func aVideoRendererShowsDecodedPicturesOnTheWallClock() async throws {
        let server = try XvfbServer.started()
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                 "-c:v", "libx264", "-pix_fmt", "yuv444p", clip])  // 4:4:4: converted for SDL
        let pictures = try Demuxer(path: clip).videoTrack().decodeVideo()
        let renderer = try Self.withEnvironment(["DISPLAY": server.display]) {
            try VideoRenderer(upstream: pictures, options: .init(title: "pictures"))
        }
        let began = Date()
        let statistics = try await renderer.run()
        #expect(Date().timeIntervalSince(began) > 1.9, "paced by the pictures' times")
        #expect(statistics.picturesShown + statistics.picturesDropped == 60, "\(statistics)")
        #expect(statistics.picturesShown > 0)
    }

    /// Without a display, showing pictures fails with an error that names the display, not the
    /// audio output, and says what to do; so does a player asked for the picture alone.
    @Test func withoutADisplayTheErrorNamesTheDisplay() throws {
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=10:duration=0.5",
                                 "-c:v", "libx264", clip])
        let headless = ["DISPLAY": "", "WAYLAND_DISPLAY": ""]
        func expectNoDisplay(_ open: () throws -> Void) {
            #expect {
                try Self.withEnvironment(headless, open)
            } throws: { error in
                guard case AVPipelineError.deviceUnavailable(.display, let reason) = error else { return false }
                return "\(error)".hasPrefix("no display available: ") && reason.contains("Xvfb")
                    && (error as? AVPipelineError)?.category == .unsupported
            }
        }
        expectNoDisplay { _ = try VideoRenderer(upstream: try Demuxer(path: clip).videoTrack().decodeVideo()) }
        expectNoDisplay { _ = try Player(path: clip, options: .init(playsAudio: false)) }
    }

    /// Paused before it runs, a player begun at `start` shows ffmpeg's frame round(start × 30),
    /// and not a neighbour; each `seek(to:)` while paused shows the frame of its target.
    @Test(.needsDisplay) func aPausedPlayerShowsTheFrameAtItsStartAndAtEachSeek() async throws {
        let server = try XvfbServer.started()
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=10",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        let player = try Self.withEnvironment(["DISPLAY": server.display]) {
            try Player(path: clip, options: .init(playsAudio: false, start: MediaTime(value: 43, timeBase: Rational(1, 10)), windowTitle: "exact"))
        }
        player.pause()  // before it runs (play() would resume it)
        let running = Task { try await player.run() }
        let window = try PlayerWindow.find(title: "exact", on: server, timeout: 120)
        var previous = [UInt8](repeating: 0, count: 320 * 180)  // the window starts black
        for (time, index) in [(nil, 129), (2.5, 75), (7.0, 210)] as [(Double?, Int)] {
            if let time { try player.seek(to: MediaTime(seconds: time)) }
            let shown = try window.settledScreenshot { $0 != previous }
            let frames = try PictureComparison.grayFrames(clip, from: index - 1, count: 3)
            let (before, exact, after) = (PictureComparison.psnr(shown, frames[0]), PictureComparison.psnr(shown, frames[1]),
                                          PictureComparison.psnr(shown, frames[2]))
            #expect(exact >= 30 && exact > before && exact > after,
                    "at \(time ?? 4.3) s: frame \(index) \(exact) dB, its neighbours \(before) / \(after) dB")
            previous = shown
        }
        player.stop()
        _ = try await running.value
    }

    /// Pictures whose time has passed when their turn comes are dropped and counted: a source that
    /// stalls for 1.5 s after its 10th picture makes the pictures due meanwhile (over 35: it may read
    /// at most 4 ahead) late by more than a frame. Every decoded picture is shown or dropped.
    @Test(.needsDisplay) func latePicturesAreDroppedAndCounted() async throws {
        let server = try XvfbServer.started()
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        let counted = try Subprocess.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                     "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", clip])
        let frames = try #require(Int(counted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        let decoder = try Demuxer(path: clip).videoTrack().decodeVideo()
        let stalling = StallingSource(decoder, stallingAfter: 10, for: .milliseconds(1500))
        let renderer = try Self.withEnvironment(["DISPLAY": server.display]) {
            try VideoRenderer(upstream: stalling, options: .init(title: "late"))
        }
        let statistics = try await renderer.run()
        #expect(statistics.picturesShown + statistics.picturesDropped == frames, "\(frames) pictures: \(statistics)")
        #expect(decoder.statistics.pictures == frames, "the decoder made every picture: \(decoder.statistics)")
        #expect(statistics.picturesDropped >= 30, "the pictures due during the stall are dropped: \(statistics)")
        // How many of the others are in time depends on the machine (under a sanitizer or load,
        // more are late); the first picture always is.
        #expect(statistics.picturesShown >= 1, "pictures in time are shown: \(statistics)")
    }

    /// Sound only, on a private PulseAudio server's null sink whose monitor is recorded. The clip
    /// is a quiet tone with a loud beep at every whole second: each beep is heard when `position`
    /// reads its second (±45 ms), so the position is the audio clock; `pause()` holds it and
    /// silences the sink; `seek(to:)` moves it (the beeps heard next are the new position's); `stop()`
    /// ends the playback before the end.
    @Test(.needsSoundServer) func aPlayerStartedWithPlayFollowsTheAudioClock() async throws {
        let server = try PulseAudioServer.started()
        let folder = TemporaryDirectory()
        let clip = folder.file("beeps.m4a")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi",
                                 "-i", "aevalsrc='0.05*sin(2*PI*440*t)+if(lt(mod(t\\,1)\\,0.1)\\,0.5*sin(2*PI*1000*t)\\,0)':s=44100:d=12",
                                 "-c:a", "aac", "-b:a", "128k", clip])
        let recorder = try MonitorRecorder(server: server)
        defer { recorder.stop() }
        // SDL's PulseAudio driver connects when the device opens; only that moment needs the server.
        let player = try Self.withEnvironment(server.environment.filter { $0.key != "HOME" }) {
            try Player(path: clip, options: .init(playsVideo: false))
        }
        #expect(player.playsAudio && !player.showsVideo)
        let began = Date()
        var samples: [(wall: Double, position: Double)] = []
        // Samples the position with the wall time until it reaches `target` (a pair whose reading
        // took over 2 ms, the task being preempted, is left out).
        func follow(until target: Double) async throws {
            while true {
                let before = Date().timeIntervalSince1970
                let position = player.position.seconds
                let after = Date().timeIntervalSince1970
                if after - before < 0.002 { samples.append(((before + after) / 2, position)) }
                if position >= target { return }
                guard Date().timeIntervalSince(began) < 600 else { throw TestFailure("the position never reached \(target) s") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        player.play()
        try await follow(until: 3.5)
        player.pause()
        let pausedAt = Date().timeIntervalSince1970
        let held = player.position
        try await Task.sleep(for: .milliseconds(900))
        #expect(player.position == held, "paused, the position holds")
        let pauseEnded = Date().timeIntervalSince1970
        try player.seek(to: MediaTime(value: 65, timeBase: Rational(1, 10)))
        #expect(abs(player.position.seconds - 6.5) < 0.001, "a seek while paused moves the position to its target: \(player.position)")
        player.play()
        let resumedAt = Date().timeIntervalSince1970
        try await follow(until: 9.5)
        player.stop()
        try await player.waitUntilFinished()
        // Stopped at 9.5 s; the clip's own end is 12 s (the margin is for a starved poller).
        #expect(player.position.seconds < 11.9, "stop() ends the 12 s clip early: \(player.position)")
        try await Task.sleep(for: .milliseconds(300))

        #expect(recorder.level(from: resumedAt + 0.5, to: resumedAt + 2) > 0.02, "the tone plays")
        #expect(recorder.level(from: pausedAt + 0.3, to: pauseEnded) < 0.003, "the sink is silent while paused")
        var heard: [(second: Int, position: Double)] = []
        for onset in recorder.onsets() {
            guard let position = Self.interpolate(samples, at: onset) else { continue }
            // Just after the resume, the device's queue refills from the new position first.
            if onset > resumedAt && onset < resumedAt + 0.3 { continue }
            heard.append((Int(position.rounded()), position))
        }
        let heardSeconds = heard.map(\.second)
        for (second, position) in heard {
            #expect(abs(position - Double(second)) <= 0.045,
                    "a beep of second \(second) was heard at position \(position) (all beeps: \(heard))")
        }
        // A beep can only be placed where the position was sampled closely around it: on a loaded
        // machine the sampling task can miss 50 ms, and the beep of that second goes unplaced.
        let placeable = [1, 2, 3, 7, 8, 9].filter { Self.sampledClosely(samples, around: Double($0)) }
        #expect(placeable.contains { $0 <= 3 } && placeable.contains { $0 >= 7 },
                "the position was sampled closely around a beep before the pause and after the seek: \(placeable)")
        #expect(Set(heardSeconds).isSuperset(of: placeable) && heardSeconds.allSatisfy { $0 <= 3 || (7...9).contains($0) },
                "beeps heard at seconds \(heardSeconds) (placeable: \(placeable)): 0–3, then 7–9 after the seek to 6.5")
    }

    /// Whether two samples at most 50 ms apart enclose the position `position`.
    static func sampledClosely(_ samples: [(wall: Double, position: Double)], around position: Double) -> Bool {
        zip(samples, samples.dropFirst()).contains { a, b in
            a.position <= position && position <= b.position && b.wall - a.wall <= 0.05
        }
    }

    /// The position at wall time `time`, between two samples at most 50 ms apart.
    static func interpolate(_ samples: [(wall: Double, position: Double)], at time: Double) -> Double? {
        guard let after = samples.firstIndex(where: { $0.wall >= time }), after > 0 else { return nil }
        let (a, b) = (samples[after - 1], samples[after])
        guard b.wall - a.wall <= 0.05 else { return nil }
        return a.position + (b.position - a.position) * (time - a.wall) / (b.wall - a.wall)
    }

    /// Runs `body` with `variables` set in the process's environment (SDL reads DISPLAY and the
    /// PulseAudio server when a window or device opens), then puts the environment back.
    static func withEnvironment<T>(_ variables: [String: String], _ body: () throws -> T) throws -> T {
        let previous = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in previous {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try body()
    }
}

/// Forwards a source's pictures, stalling once (a slow disk, a busy machine) before picture
/// `stallingAfter + 1`: what makes pictures late in real playback, without touching the player.
final class StallingSource<Upstream: SampleSource>: SampleSource, @unchecked Sendable where Upstream.Buffer == VideoFrame {
    // @unchecked: pulled by the renderer's decoding task only.
    typealias Buffer = VideoFrame
    private let upstream: Upstream
    private let stallingAfter: Int
    private let stall: Duration
    private var delivered = 0

    init(_ upstream: Upstream, stallingAfter: Int, for stall: Duration) {
        self.upstream = upstream
        self.stallingAfter = stallingAfter
        self.stall = stall
    }

    var outputFormat: VideoFormat { upstream.outputFormat }

    func next() async throws -> VideoFrame? {
        if delivered == stallingAfter { try await Task.sleep(for: stall) }
        delivered += 1
        return try await upstream.next()
    }
}
