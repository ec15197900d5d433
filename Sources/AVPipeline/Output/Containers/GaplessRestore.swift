internal import CFFmpeg

/// Puts an AAC track's priming and end back on its packets: each moves `priming` samples earlier
/// (the first then starts before 0, as the encoder made it) and the last ends after `validSamples`.
/// A fragmented MP4 loses both (FFmpeg 5.1's fragmented writer starts the track at 0 and keeps
/// whole frames, and its reader ignores a fragmented file's edit list); a `Muxer` fed these packets
/// writes the edit list and `iTunSMPB` again.
final class GaplessRestore<Upstream: SampleSource>: SampleSource where Upstream.Buffer == EncodedAudioPacket<AnyAudioCodec> {
    typealias Buffer = EncodedAudioPacket<AnyAudioCodec>
    var outputFormat: EncodedAudioFormat { upstream.outputFormat }
    private let upstream: Upstream
    private let shift: Int64
    private let end: Int64
    /// The packet after the one handed out next: only the last one's duration changes.
    private var ahead: Buffer?
    private var started = false

    init(upstream: Upstream, gapless: GaplessInfo) {
        self.upstream = upstream
        let samples = AVRational(num: 1, den: Int32(upstream.outputFormat.sampleRate)), timeBase = upstream.outputFormat.timeBase.avValue
        shift = av_rescale_q(Int64(gapless.priming), samples, timeBase)
        end = av_rescale_q(gapless.validSamples, samples, timeBase)
    }

    func next() async throws -> Buffer? {
        if !started {
            started = true
            ahead = try await upstream.next()
        }
        guard let current = ahead else { return nil }
        ahead = try await upstream.next()
        let p = current.packet.pointer
        if p.pointee.pts != avp_nopts_value() { p.pointee.pts -= shift }
        if p.pointee.dts != avp_nopts_value() { p.pointee.dts -= shift }
        if ahead == nil, p.pointee.pts != avp_nopts_value(), end > p.pointee.pts { p.pointee.duration = end - p.pointee.pts }
        return current
    }
}
