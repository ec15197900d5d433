import AVPipeline
import Foundation
import Testing
import TestSupport

/// The library's `Player` and `VideoRenderer`, with a real window on a private X server. (The
/// process's DISPLAY is pointed at it while the window opens: SDL reads it then.) Run in-process,
/// beside suites whose blocking calls can hold the concurrency pool's threads for many seconds,
/// so they wait generously and check counts rather than timings.
@Suite(.serialized) struct PlayerTests {
    @Test func aVideoOnlyPlayerPausesSeeksAndEndsFromAnyTask() async throws {
        let (started, problem) = XvfbServer.start()
        guard let server = started else {
            print("notice: skipping the Player test: \(problem ?? "Xvfb cannot start")")
            return
        }
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mp4")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=4",
                                 "-c:v", "libx264", "-pix_fmt", "yuv420p", clip])
        // SDL connects to the display while the window opens; the rest of the suite must not see it.
        let previous = getenv("DISPLAY").map { String(cString: $0) }
        setenv("DISPLAY", server.display, 1)
        let opened = Result { try Player(path: clip, options: .init(playsAudio: false)) }
        if let previous { setenv("DISPLAY", previous, 1) } else { unsetenv("DISPLAY") }
        let player = try opened.get()
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
        let handled = statistics.framesShown + statistics.framesDropped
        #expect(handled >= 30 && handled <= Int(held.seconds * 30) + 1 + 30 + 3, "\(handled) pictures shown or dropped: \(statistics)")
        await #expect(throws: AVPipelineError.self) { try await player.run() }
    }

    /// Any source of pictures shows in a window at its own pace: 2 s of pictures take 2 s, and
    /// each is shown or (late, under load) dropped.
    @Test func aVideoRendererShowsDecodedPicturesOnTheWallClock() async throws {
        let (started, problem) = XvfbServer.start()
        guard let server = started else {
            print("notice: skipping the VideoRenderer test: \(problem ?? "Xvfb cannot start")")
            return
        }
        let folder = TemporaryDirectory()
        let clip = folder.file("clip.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=2",
                                 "-c:v", "libx264", "-pix_fmt", "yuv444p", clip])  // 4:4:4: converted for SDL
        let pictures = try Demuxer(path: clip).videoTrack().decodeVideo()
        let previous = getenv("DISPLAY").map { String(cString: $0) }
        setenv("DISPLAY", server.display, 1)
        let opened = Result { try VideoRenderer(upstream: pictures, options: .init(title: "pictures")) }
        if let previous { setenv("DISPLAY", previous, 1) } else { unsetenv("DISPLAY") }
        let renderer = try opened.get()
        let began = Date()
        let statistics = try await renderer.run()
        #expect(Date().timeIntervalSince(began) > 1.9, "paced by the pictures' times")
        #expect(statistics.framesShown + statistics.framesDropped == 60, "\(statistics)")
        #expect(statistics.framesShown > 0)
    }
}
