import Foundation
import Testing
import TestSupport
import AVPipeline

/// The shapes issue 39 made one: `encodeAudio(_:)` beside `encodeVideo(_:)` with one options type,
/// times as `MediaTime`, and track selection where nil means the best track for every kind.
struct EncoderVocabularyTests {
    /// The packets' bytes, in order.
    static func packets<S: SampleSource, C: AudioCodecKind>(_ source: S) async throws -> [[UInt8]] where S.Buffer == EncodedAudioPacket<C> {
        var all: [[UInt8]] = []
        while let packet = try await source.next() { all.append(packet.withUnsafeBytes { [UInt8]($0) }) }
        return all
    }

    /// `encodeAudio` with the default options is FFmpeg's native AAC as `encodeAAC` makes it, byte
    /// for byte (the AAC path is shared, only the packets' static type differs).
    @Test func encodeAudioDefaultsToTheSameAACAsEncodeAAC() async throws {
        let viaAudio = try PCMBufferTests.Tone().encodeAudio(.init(bitRate: 96_000))
        let viaAAC = try PCMBufferTests.Tone().encodeAAC(.init(bitRate: 96_000))
        #expect(viaAudio.outputFormat.codec == .aac && viaAudio.options.encoder == "aac")
        let (ours, theirs) = (try await Self.packets(viaAudio), try await Self.packets(viaAAC))
        #expect(ours.count > 40 && ours == theirs)
    }

    /// Another encoder by name through the same options: FLAC at the tone's own rate, its packets
    /// stamped on the tone's clock from 0 to the tone's end (48 000 sample frames).
    @Test func encodeAudioTakesAnyEncoderByName() async throws {
        let flac = try PCMBufferTests.Tone().encodeAudio(.init(encoder: "flac"))
        #expect(flac.outputFormat.codec.name == "flac" && flac.encoderInputFormat.sampleRate == 48_000)
        var times: [Int64] = []
        while let packet = try await flac.next() {
            times.append(try #require(packet.presentationTime?.converted(to: Rational(1, 48_000)).value))
        }
        #expect(times.first == 0 && times == times.sorted() && Set(times).count == times.count, "\(times)")
        // The tone's last samples are in a packet; FLAC ends with its STREAMINFO update at the end time.
        #expect(times.allSatisfy { $0 <= 48_000 } && times.contains { (48_000 - 8192..<48_000).contains($0) }, "\(times)")
    }

    /// What only one encoder does is refused by the others, naming the option.
    @Test func optionsOneEncoderCannotHonourAreRefused() throws {
        #expect { try PCMBufferTests.Tone().encodeAudio(.init(encoder: "flac", parallel: .init(jobs: 2))) } throws: { error in
            if case AVPipelineError.invalidOption(name: "parallel", _, _) = error { return true }
            return false
        }
        #expect { try PCMBufferTests.Tone().encodeAAC(.init(encoder: "flac")) } throws: { error in
            if case AVPipelineError.invalidOption(name: "encoder", _, _) = error { return true }
            return false
        }
    }

    /// A picture's times are `MediaTime`s, converted to the format's clock.
    @Test func aNewPictureTakesItsTimesAsMediaTime() throws {
        let format = VideoFormat(width: 64, height: 48, timeBase: Rational(1, 30))
        let picture = try VideoFrame(format: format, presentationTime: .seconds(2), duration: MediaTime(value: 1, timeBase: Rational(1, 30)))
        #expect(picture.presentationTime?.value == 60 && picture.duration?.value == 1)
        #expect(picture.planeCount == 3)
        #expect(try VideoFrame(format: format, presentationTime: nil).presentationTime == nil)
    }

    /// `subtitleTrack(nil)` is the file's best subtitle track (the default one), as `audioTrack(nil)`
    /// is for audio; `subtitleTrack(0)` the first in container order.
    @Test func nilSelectsTheBestSubtitleTrackAsForAudio() async throws {
        let folder = TemporaryDirectory()
        let srt = folder.file("cues.srt")
        try "1\n00:00:00,000 --> 00:00:01,000\nhello\n".write(toFile: srt, atomically: true, encoding: .utf8)
        let movie = folder.file("two.mkv")
        try MediaFactory.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=d=1", "-i", srt, "-i", srt,
                                 "-map", "0", "-map", "1", "-map", "2", "-c:a", "flac", "-c:s", "srt",
                                 "-disposition:s:0", "0", "-disposition:s:1", "default", movie])
        let demuxer = try Demuxer(path: movie)
        let subtitles = demuxer.info.subtitleTracks
        #expect(subtitles.count == 2)
        #expect(try demuxer.subtitleTrack(0).info.index == subtitles[0].index)
        #expect(try demuxer.subtitleTrack(nil).info.index == subtitles[1].index)
        #expect(try demuxer.subtitleTrack().info.index == subtitles[1].index)
    }
}
