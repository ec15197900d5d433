import ArgumentParser
import AVPipeline

/// Which of a file's tracks `remux` copies (validated by the command, in its order).
struct CopyTrackOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Which audio tracks to copy: N (from 0, in the file's order) or all.", valueName: "N|all"))
    var audioTrack: TrackChoiceArgument?

    @Option(help: ArgumentHelp("Which video tracks to copy: N (from 0, cover art not counted) or all.", valueName: "N|all"))
    var videoTrack: TrackChoiceArgument?

    @Flag(help: "Copy only the audio tracks.")
    var audioOnly = false

    @Flag(help: "Copy only the video tracks.")
    var videoOnly = false

    @Flag(help: "Leave the subtitle tracks out.")
    var noSubtitles = false

    /// The audio tracks copied: what was asked for, else every one.
    var audio: CopyPlan.Choice { videoOnly ? .none : audioTrack?.choice ?? .all }

    /// The video tracks copied into `container`: an .m4a is audio by definition.
    func video(into container: Container) -> CopyPlan.Choice {
        audioOnly || container == .m4a ? .none : videoTrack?.choice ?? .all
    }

    var subtitles: Bool { !noSubtitles && !audioOnly && !videoOnly }
}
