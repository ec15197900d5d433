import Testing

extension Trait where Self == ConditionTrait {
    /// Skips a test, saying why, where Xvfb, xwd or xdotool is not installed.
    public static var needsDisplay: Self { needsDisplay(windowManager: false) }

    /// Skips a test, saying why, where Xvfb and its tools (and openbox, when asked) are not installed.
    public static func needsDisplay(windowManager: Bool) -> Self {
        .enabled("needs a private X server") { XvfbServer.missingTool(windowManager: windowManager) == nil }
    }

    /// Skips a test, saying why, where PulseAudio is not installed.
    public static var needsSoundServer: Self {
        .enabled("needs a private PulseAudio server") { PulseAudioServer.missingTool == nil }
    }

    /// Skips a test, saying why, where nginx or its RTMP module is not installed.
    public static var needsNginx: Self {
        .enabled("needs a private nginx with the RTMP module") { NginxServer.missingTool == nil }
    }
}
