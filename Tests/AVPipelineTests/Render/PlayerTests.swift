import AVPipeline
import Foundation
import Testing
import TestSupport

/// The library's `Player`, driven from another task, with a real window on a private X server.
/// (The process's DISPLAY is pointed at it: SDL reads it when the window opens.)
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
            try await Task.sleep(for: .milliseconds(500))
            player.pause()
            let held = player.position
            try await Task.sleep(for: .milliseconds(500))
            let stillHeld = player.position
            player.resume()
            try player.seek(to: .seconds(3))  // 2.5 s of the clip skipped
            return (held, stillHeld)
        }
        let statistics = try await player.run()
        let elapsed = Date().timeIntervalSince(began)
        let (held, stillHeld) = try await steering.value
        #expect(held == stillHeld, "paused, the position holds")
        // 0.5 s played, 0.5 s paused, then the last 1 s: about 2 s instead of 4. (The suite runs
        // beside others on two cores: pictures may come late, and be dropped, but none go missing.)
        #expect(elapsed > 1.8 && elapsed < 4, "\(elapsed) s")
        #expect(player.position.seconds > 3.9 && player.position.seconds < 4.8, "ends at the end: \(player.position)")
        let handled = statistics.framesShown + statistics.framesDropped
        #expect((40...50).contains(handled), "about 15 + 30 pictures shown or dropped: \(statistics)")
        await #expect(throws: AVPipelineError.self) { try await player.run() }
    }
}
