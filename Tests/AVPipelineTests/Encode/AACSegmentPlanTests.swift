import Testing
@testable import AVPipeline

/// The plan alone: which frames feed a segment's encoder and which packets it keeps.
@Suite struct AACSegmentPlanTests {
    let plan = AACSegmentPlan(segmentFrames: 10, preRoll: 4, postRoll: 1)

    @Test func segmentsFeedFromTheirPreRollToTheirPostRoll() {
        #expect(plan.feedStart(of: 0) == 0)  // nothing before the input
        #expect(plan.feedEnd(of: 0) == 11)
        #expect(plan.feedStart(of: 1) == 6 && plan.feedEnd(of: 1) == 21)
        #expect(plan.feedStart(of: 3) == 26 && plan.feedEnd(of: 3) == 41)
        let long = AACSegmentPlan(segmentFrames: 4, preRoll: 9, postRoll: 0)  // pre-roll across segments
        #expect(long.feedStart(of: 1) == 0 && long.feedStart(of: 3) == 3)
    }

    /// Packet i (stamped (i − 1) × 1024; 0 is the priming) belongs to segment ⌊i / S⌋: every
    /// packet is kept by exactly one segment, the last one keeping the flush.
    @Test func everyPacketIsKeptByExactlyOneSegment() {
        let packets = 0...57  // 57 frames: the flush gives packet 57
        let lastSegment = 5
        for packet in packets {
            let keepers = (0...lastSegment).filter { plan.kept(by: $0, isLast: $0 == lastSegment).contains(packet) }
            #expect(keepers == [packet / 10], "packet \(packet) kept by \(keepers)")
        }
    }

    @Test func theLastSegmentEndsWithTheSequentialLastPacket() {
        #expect(AACSegmentPlan.packetCount(samples: 5_000, padding: 1024, frameSize: 1024) == 6)
        #expect(AACSegmentPlan.packetCount(samples: 8 * 1024, padding: 1024, frameSize: 1024) == 9)
        #expect(AACSegmentPlan.packetCount(samples: 0, padding: 1024, frameSize: 1024) == 1)
        #expect(plan.kept(by: 5, isLast: true, packets: 58) == 50..<58)
    }

    @Test func packetIndicesCountFromThePriming() {
        #expect(AACSegmentPlan.packetIndex(pts: -1024, origin: 0, frameSize: 1024) == 0)
        #expect(AACSegmentPlan.packetIndex(pts: 0, origin: 0, frameSize: 1024) == 1)
        #expect(AACSegmentPlan.packetIndex(pts: 5 * 1024 + 7000, origin: 7000, frameSize: 1024) == 6)
    }
}
