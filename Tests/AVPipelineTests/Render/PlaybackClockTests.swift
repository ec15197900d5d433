@testable import AVPipeline
import Foundation
import Testing

/// The wall-clock mode of the master clock (video-only playback); the audio mode is checked end
/// to end against a real sound server in PlayWindowTests.
@Suite struct PlaybackClockTests {
    static func settle(_ seconds: Double) { usleep(useconds_t(seconds * 1_000_000)) }

    @Test func itHoldsAtTheStartUntilThePictureIsReadyThenRuns() {
        let clock = PlaybackClock(start: 5, audio: nil)
        Self.settle(0.1)
        #expect(clock.now() == 5)
        clock.startWallClock(at: 5)
        Self.settle(0.2)
        #expect(abs(clock.now() - 5.2) < 0.1)
    }

    @Test func pauseHoldsItAndResumeGoesOnFromThere() {
        let clock = PlaybackClock(start: 0, audio: nil)
        clock.startWallClock(at: 0)
        Self.settle(0.1)
        clock.pause()
        let held = clock.now()
        Self.settle(0.2)
        #expect(clock.now() == held)
        clock.resume()
        Self.settle(0.1)
        #expect(abs(clock.now() - held - 0.1) < 0.08)
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
        clock.startWallClock(at: 42)
        Self.settle(0.1)
        #expect(abs(clock.now() - 42.1) < 0.08)
    }
}
