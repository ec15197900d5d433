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
}
