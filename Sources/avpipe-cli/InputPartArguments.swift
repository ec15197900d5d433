import ArgumentParser
import AVPipeline

/// `encode`'s `--audio-track`, `--no-subtitles`, `--start` and `--duration`: which tracks of the
/// input, and which span of it, are encoded (read through demux → decode, never as a capture).
struct InputPartArguments: ParsableArguments {
    @Option(help: ArgumentHelp("Encode only this audio track (0 = first); default: a movie's every one, an audio file's main one.", valueName: "n")) var audioTrack: Int?
    @Flag(help: "Leave a movie's subtitle tracks out (by default they are kept, converted where the output needs it).") var noSubtitles = false
    @Option(help: ArgumentHelp("Begin at this time (seconds or hh:mm:ss.xxx), to the sample.", valueName: "time")) var start: TimeArgument?
    @Option(help: ArgumentHelp("Encode this long (seconds or hh:mm:ss.xxx), to the sample.", valueName: "time")) var duration: TimeArgument?

    /// Called by `encode`'s `validate()` where its other checks put it.
    func check() throws {
        if let audioTrack, audioTrack < 0 { throw ValidationError("--audio-track counts from 0 (got \(audioTrack))") }
    }

    /// Whether the input must be read through demux → decode even when it is PCM.
    var selectsPart: Bool { audioTrack != nil || start != nil || duration != nil }

    /// What `AudioFileSource` reads, with the demuxer's settings.
    func sourceOptions(demuxer: Demuxer.Options) -> AudioFileSource.Options {
        AudioFileSource.Options(track: audioTrack, start: start?.time, duration: duration?.time, demuxer: demuxer)
    }
}
