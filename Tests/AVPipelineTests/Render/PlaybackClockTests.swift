@testable import AVPipeline
import Foundation
import Testing

/// The wall-clock mode of the master clock (video-only playback); the audio mode is checked end
/// to end against a real sound server in PlayWindowTests.
@Suite struct PlaybackClockTests {
    static func settle(_ seconds: Double) { usleep(useconds_t(seconds * 1_000_000)) }

    /// Runs `body` (which starts or resumes the clock, then sleeps) and reads the clock: a running
    /// clock advanced by at least what was slept and at most the wall time that passed, however
    /// long a loaded machine made the sleep.
    static func expectAdvance(from start: Double, sleeping slept: Double, _ body: () -> Void, read: () -> Double,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let before = MonotonicTime.nanoseconds()
        body()
        let reading = read()
        let wall = Double(MonotonicTime.nanoseconds() - before) / 1e9
        #expect(reading - start >= slept - 0.005 && reading - start <= wall + 0.005,
                "advanced \(reading - start) s; slept \(slept) s in \(wall) s of wall time", sourceLocation: sourceLocation)
    }

    @Test func itHoldsAtTheStartUntilThePictureIsReadyThenRuns() {
        let clock = PlaybackClock(start: 5, audio: nil)
        Self.settle(0.1)
        #expect(clock.now() == 5)
        Self.expectAdvance(from: 5, sleeping: 0.2, { clock.startWallClock(at: 5); Self.settle(0.2) }, read: clock.now)
    }

    @Test func pauseHoldsItAndResumeGoesOnFromThere() {
        let clock = PlaybackClock(start: 0, audio: nil)
        clock.startWallClock(at: 0)
        Self.settle(0.1)
        clock.pause()
        let held = clock.now()
        Self.settle(0.2)
        #expect(clock.now() == held)
        Self.expectAdvance(from: held, sleeping: 0.1, { clock.resume(); Self.settle(0.1) }, read: clock.now)
    }

    @Test func aSeekRestartsItFromTheTargetEvenWhilePaused() {
        let clock = PlaybackClock(start: 0, audio: nil)
        clock.startWallClock(at: 0)
        clock.pause()
        clock.seek(to: 42, generation: 1)
        #expect(clock.now() == 42)
        clock.resume()
        Self.settle(0.1)
        #expect(clock.now() == 42, "it waits for the new position's first picture")
        Self.expectAdvance(from: 42, sleeping: 0.1, { clock.startWallClock(at: 42); Self.settle(0.1) }, read: clock.now)
    }
}
