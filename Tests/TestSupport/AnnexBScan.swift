/// An independent Annex B reader for tests: splits a raw H.264/H.265 stream at its start codes and
/// checks that every random-access picture is preceded by its parameter sets.
public struct AnnexBScan {
    public let nalTypes: [Int]
    /// Start codes found at positions where none was expected, or a stream not starting with one.
    public let framingProblems: [String]

    public init(_ bytes: [UInt8], hevc: Bool) {
        var types: [Int] = []
        var problems: [String] = []
        if !(bytes.starts(with: [0, 0, 0, 1]) || bytes.starts(with: [0, 0, 1])) { problems.append("no start code at offset 0") }
        var i = 0
        while i + 3 <= bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                let header = i + 3
                guard header < bytes.count else { problems.append("start code at the very end"); break }
                if bytes[header] & 0x80 != 0 { problems.append("forbidden_zero_bit set at \(header)") }
                types.append(hevc ? Int(bytes[header] >> 1) & 0x3F : Int(bytes[header]) & 0x1F)
                i = header
            } else {
                i += 1
            }
        }
        nalTypes = types
        framingProblems = problems
    }

    /// Random-access pictures (H.264 IDR = 5; HEVC IRAP = 16…23) whose preceding parameter sets
    /// (since the previous picture) lack SPS+PPS (+VPS for HEVC), as offsets in `nalTypes`.
    public func keyframesMissingParameterSets(hevc: Bool) -> [Int] {
        let vcl: (Int) -> Bool = hevc ? { $0 < 32 } : { $0 >= 1 && $0 <= 5 }
        let isKey: (Int) -> Bool = hevc ? { (16...23).contains($0) } : { $0 == 5 }
        let required: [Int] = hevc ? [32, 33, 34] : [7, 8]
        var seen: [Int] = []
        var missing: [Int] = []
        var previousWasKey = false
        for (index, type) in nalTypes.enumerated() {
            if vcl(type) {
                // Slices after the first of the same keyframe picture share its parameter sets.
                if isKey(type) && !previousWasKey {
                    // The required types must appear in order (extra copies, e.g. in-band ones, are fine).
                    var next = 0
                    for type in seen where next < required.count && type == required[next] { next += 1 }
                    if next < required.count { missing.append(index) }
                }
                previousWasKey = isKey(type)
                seen = []
            } else {
                if required.contains(type) { previousWasKey = false }
                seen.append(type)
            }
        }
        return missing
    }

}
