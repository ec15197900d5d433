import Foundation
import Testing
@testable import AVPipeline

/// The pacer of a live push: never early by more than its burst, and one wake-up per burst.
@Suite struct RealTimePacerTests {
    /// 1 s of 720p30 + 48 kHz AAC times (the two tracks interleaved, as a muxer writes them).
    static var interleavedTimes: [MediaTime] {
        let pictures = (0..<30).map { MediaTime(value: Int64($0), timeBase: Rational(1, 30)) }
        let sound = (0..<47).map { MediaTime(value: Int64($0) * 1024, timeBase: Rational(1, 48_000)) }
        return (pictures + sound).sorted { $0.seconds < $1.seconds }
    }

    @Test func packetsAreNeverEarlierThanTheBurstAndTheWholeTakesItsTime() throws {
        let burst = Duration.milliseconds(40)
        var pacer = RealTimePacer(burst: burst)
        let clock = ContinuousClock(), start = clock.now
        var wakeUps = 0, last = start
        for time in Self.interleavedTimes {
            try pacer.wait(until: time)
            let now = clock.now
            let early = Duration.microseconds(Int64(time.seconds * 1_000_000)) - (now - start)
            #expect(early <= burst + .milliseconds(1), "the packet at \(time.seconds) s went \(early) early")
            if now - last > .milliseconds(5) { wakeUps += 1 }
            last = now
        }
        // The last packet (at 0.979 s) is written at least 0.939 s after the first.
        #expect(clock.now - start >= .milliseconds(939))
        // 77 packets in a second: per-packet sleeps would wake ~77 times; bursts of 40 ms at most ~25.
        #expect(wakeUps <= 30, "\(wakeUps) wake-ups")
    }

    @Test func withoutABurstEveryPacketWaitsForItsOwnTime() throws {
        var pacer = RealTimePacer(burst: .zero)
        let clock = ContinuousClock(), start = clock.now
        for time in Self.interleavedTimes.prefix(20) {
            try pacer.wait(until: time)
            #expect(clock.now - start >= .microseconds(Int64(time.seconds * 1_000_000)))
        }
    }
}
