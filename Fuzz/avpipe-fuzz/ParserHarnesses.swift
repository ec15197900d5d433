#if DEBUG || AVPIPE_FUZZING
@testable import AVPipeline
import CFFmpeg

/// Bytes → decode-order pictures (POC, IDR flag) → `PresentationOrder`. Invariants: every picture
/// gets exactly one presentation index, indices come out as 0, 1, 2…, and whenever no POC period is
/// longer than the reorder window, the order equals an independent sort of each period by POC.
enum PresentationOrderHarness {
    static func run(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let depth = 1 + Int(first % 16)
        var order = PresentationOrder(depth: depth)
        var settled: [(index: Int64, presentation: Int64)] = []
        var periods: [[(index: Int64, poc: Int32)]] = [[]]
        var index: Int64 = 0
        var cursor = 1
        while cursor + 2 < bytes.count {
            let poc = Int32(Int16(bitPattern: UInt16(bytes[cursor]) << 8 | UInt16(bytes[cursor + 1])))
            let startsPeriod = index > 0 && bytes[cursor + 2] & 1 == 1
            if startsPeriod { periods.append([]) }
            periods[periods.count - 1].append((index, poc))
            settled += order.add(index: index, poc: poc, startsPeriod: startsPeriod)
            index += 1
            cursor += 3
        }
        settled += order.drain()
        guard settled.count == Int(index), Set(settled.map(\.index)).count == Int(index) else {
            finding("\(index) pictures, \(settled.count) settled: \(settled)")
        }
        guard settled.map(\.presentation) == (0..<index).map({ $0 }) else {
            finding("presentation indices are not 0…n-1 in order: \(settled.map(\.presentation))")
        }
        if periods.allSatisfy({ $0.count <= depth }) {
            let expected = periods.flatMap { period in
                period.sorted { ($0.poc, $0.index) < ($1.poc, $1.index) }.map(\.index)
            }
            guard settled.map(\.index) == expected else {
                finding("order \(settled.map(\.index)) != sorted by POC \(expected) (depth \(depth))")
            }
        }
    }
}

/// Bytes → one packet → `RawVideoTiming.startsPOCPeriod`, for H.264 and H.265, against a naive
/// oracle that lists every start code first and then looks at the first slice.
enum NALScanHarness {
    static func run(_ bytes: [UInt8]) {
        guard let packet = try? Packet() else { finding("no packet") }
        guard av_new_packet(packet.pointer, Int32(bytes.count)) == 0 else { return }
        if !bytes.isEmpty { packet.pointer.pointee.data.update(from: bytes, count: bytes.count) }
        for (codec, isH264) in [(AV_CODEC_ID_H264, true), (AV_CODEC_ID_HEVC, false)] {
            let scanned = RawVideoTiming.startsPOCPeriod(packet, codec: codec)
            let expected = oracle(bytes, h264: isH264)
            if scanned != expected { finding("\(isH264 ? "H.264" : "H.265"): scan \(scanned), oracle \(expected), \(bytes)") }
        }
    }

    static func oracle(_ bytes: [UInt8], h264: Bool) -> Bool {
        guard bytes.count >= 4 else { return false }
        let headers = (0...(bytes.count - 4)).filter { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
            .map { bytes[$0 + 3] }
        for header in headers {
            if h264 {
                let type = Int(header & 0x1F)
                if type >= 1 && type <= 5 { return type == 5 }
            } else {
                let type = Int(header >> 1) & 0x3F
                if type < 32 { return type >= 16 && type <= 20 }
            }
        }
        return false
    }
}
#endif
