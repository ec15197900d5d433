/// What the viewer asked for in the player window (keys, closing it), as ffplay maps its keys.
enum WindowInput: Sendable, Equatable {
    case togglePause
    /// Seek by this many seconds (−/+10 for ←/→, −/+60 for ↓/↑).
    case seek(by: Double)
    /// Change the volume by this step (−/+0.1 for 9/0).
    case volume(by: Float)
    case toggleMute
    /// q, Esc, or the window was closed.
    case quit
}
