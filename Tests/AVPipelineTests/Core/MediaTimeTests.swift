import Testing
@testable import AVPipeline

@Suite struct MediaTimeTests {
    @Test func comparesAcrossTimeBases() {
        let a = MediaTime(value: 1024, timeBase: Rational(1, 44_100))
        let b = MediaTime(value: 1024 * 90_000 / 44_100 + 1, timeBase: Rational(1, 90_000))
        #expect(a < b)
        #expect(MediaTime(value: 1, timeBase: Rational(1, 2)) == MediaTime(value: 2, timeBase: Rational(1, 4)))
    }

    @Test func convertsWithRounding() {
        let t = MediaTime(value: 44_100, timeBase: Rational(1, 44_100)).converted(to: Rational(1, 1000))
        #expect(t.value == 1000)
        #expect(MediaTime(value: 3_723_456, timeBase: Rational(1, 1000)).description == "1:02:03.456")
    }

    @Test func secondsBecomeTheNearestTick() {
        #expect(MediaTime(seconds: 5.123) == MediaTime(value: 5_123_000, timeBase: Rational(1, 1_000_000)))
        #expect(MediaTime(seconds: 5.123).timeBase == Rational(1, 1_000_000))
        // 1/3 s at 1/90000 is 30000 ticks; at 1/1000, 333.33 rounds down and 2/3 s rounds up.
        #expect(MediaTime(seconds: 1.0 / 3, timeBase: Rational(1, 90_000)).value == 30_000)
        #expect(MediaTime(seconds: 2.0 / 3, timeBase: Rational(1, 1000)).value == 667)
        #expect(MediaTime(seconds: -0.25, timeBase: Rational(1, 4)).value == -1)
        #expect(MediaTime(seconds: 6.5, timeBase: Rational(1001, 30_000)).value == 195)
    }
}
