import Testing
@testable import AVPipeline

@Suite struct InterleavingQueueTests {
    @Test func takesTheEarliestAcrossTimeBases() {
        var queue = InterleavingQueue<String>(inputCount: 3)
        queue.put("video 40ms", at: MediaTime(value: 1, timeBase: Rational(1, 25)), input: 0)
        queue.put("audio 23ms", at: MediaTime(value: 1024, timeBase: Rational(1, 44_100)), input: 1)
        queue.put("audio 21ms", at: MediaTime(value: 1024, timeBase: Rational(1, 48_000)), input: 2)
        #expect(queue.popEarliest()?.element == "audio 21ms")
        #expect(queue.popEarliest()?.element == "audio 23ms")
        #expect(queue.popEarliest()?.element == "video 40ms")
        #expect(queue.popEarliest() == nil)
    }

    @Test func tiesGoToTheLowerInput() {
        var queue = InterleavingQueue<Int>(inputCount: 2)
        queue.put(1, at: .seconds(1), input: 1)
        queue.put(0, at: MediaTime(value: 1000, timeBase: Rational(1, 1000)), input: 0)
        #expect(queue.popEarliest()?.input == 0)
        #expect(queue.popEarliest()?.input == 1)
    }

    @Test func highWaterMarkCountsWaitingPackets() {
        var queue = InterleavingQueue<Int>(inputCount: 2)
        #expect(queue.highWaterMark == 0)
        queue.put(0, at: .seconds(0), input: 0)
        _ = queue.popEarliest()
        queue.put(1, at: .seconds(1), input: 0)
        #expect(queue.highWaterMark == 1)
        queue.put(2, at: .seconds(2), input: 1)
        #expect(queue.highWaterMark == 2)
        #expect(queue.count == 2)
    }
}
