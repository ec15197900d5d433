internal import CFFmpeg

/// How much FFmpeg itself prints to stderr. Libraries should not chat: the CLI keeps it at
/// `.error` unless asked to be verbose.
public enum FFmpegLog {
    public enum Level: Int32, Sendable { case quiet = -8, error = 16, warning = 24, info = 32, debug = 48 }

    public static func setLevel(_ level: Level) { av_log_set_level(level.rawValue) }
}
