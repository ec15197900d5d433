/// An ADTS header, parsed by the test suite itself (ISO/IEC 13818-7 / 14496-3 field layout), to check
/// what FFmpeg's muxer wrote for us independently of FFmpeg.
public struct ADTSHeader: Equatable, Sendable {
    public let mpegVersion: Int        // 0 = MPEG-4, 1 = MPEG-2
    public let layer: Int
    public let protectionAbsent: Bool
    public let audioObjectType: Int    // profile + 1: 2 = AAC-LC
    public let samplingFrequencyIndex: Int
    public let channelConfiguration: Int
    public let frameLength: Int        // including the header
    public let rawDataBlocks: Int      // number_of_raw_data_blocks_in_frame + 1

    public static let sampleRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    public var sampleRate: Int? { samplingFrequencyIndex < Self.sampleRates.count ? Self.sampleRates[samplingFrequencyIndex] : nil }
}

public enum ADTSParser {
    /// Walks every frame of an ADTS file; throws where the sync word is missing or a frame overruns.
    public static func headers(_ bytes: [UInt8]) throws -> [ADTSHeader] {
        var headers: [ADTSHeader] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 7 <= bytes.count else { throw TestFailure("ADTS: \(bytes.count - offset) trailing bytes at \(offset)") }
            let b = Array(bytes[offset..<(offset + 7)])
            guard b[0] == 0xFF, b[1] & 0xF0 == 0xF0 else {
                throw TestFailure("ADTS: no sync word at offset \(offset) (frame \(headers.count))")
            }
            let header = ADTSHeader(
                mpegVersion: Int(b[1] >> 3 & 1),
                layer: Int(b[1] >> 1 & 3),
                protectionAbsent: b[1] & 1 == 1,
                audioObjectType: Int(b[2] >> 6) + 1,
                samplingFrequencyIndex: Int(b[2] >> 2 & 0xF),
                channelConfiguration: Int(b[2] & 1) << 2 | Int(b[3] >> 6),
                frameLength: Int(b[3] & 3) << 11 | Int(b[4]) << 3 | Int(b[5] >> 5),
                rawDataBlocks: Int(b[6] & 3) + 1)
            guard header.frameLength >= 7, offset + header.frameLength <= bytes.count else {
                throw TestFailure("ADTS: frame \(headers.count) at \(offset) claims \(header.frameLength) bytes, file has \(bytes.count - offset)")
            }
            headers.append(header)
            offset += header.frameLength
        }
        return headers
    }
}
