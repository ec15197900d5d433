internal import CFFmpeg

/// A subtitle track cut to a part of the input, as an encode cuts its pictures and samples: cues
/// over before `start` or beginning at `end` or later are dropped, and one showing at `start`
/// begins there, shortened by what was cut.
final class SubtitleWindow<Upstream: SampleSource>: SampleSource where Upstream.Buffer == EncodedSubtitlePacket {
    typealias Buffer = EncodedSubtitlePacket
    var outputFormat: EncodedSubtitleFormat { upstream.outputFormat }
    private let upstream: Upstream
    private let start: Int64?, end: Int64?

    /// `start`/`end` on the input's timeline; nil: from its start / to its end.
    init(_ upstream: Upstream, start: MediaTime?, end: MediaTime?) {
        self.upstream = upstream
        let timeBase = upstream.outputFormat.timeBase
        self.start = start?.converted(to: timeBase).value
        self.end = end?.converted(to: timeBase).value
    }

    func next() async throws -> EncodedSubtitlePacket? {
        while let cue = try await upstream.next() {
            let p = cue.packet.pointer
            guard p.pointee.pts != avp_nopts_value() else { continue }  // a cue with no time shows nowhere
            if let end, p.pointee.pts >= end { return nil }
            guard let start, p.pointee.pts < start else { return cue }
            let over = p.pointee.pts + Swift.max(p.pointee.duration, 0)
            guard over > start else { continue }
            p.pointee.duration = over - start
            p.pointee.pts = start
            p.pointee.dts = start
            return cue
        }
        return nil
    }
}
