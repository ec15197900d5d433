/// A window that shows pictures, as `Player` and `VideoRenderer` see it: it takes the next picture
/// to show from any thread (replacing one not yet shown), reports the viewer's keys, and closes.
/// AVPipelineDevices has the SDL2 one.
public protocol PictureWindow: AnyObject, Sendable {
    /// What the viewer asks for (keys, closing the window); finishes when the window closes.
    var inputs: AsyncStream<WindowInput> { get }
    /// Shows `picture` as soon as the window can (in a pixel format the devices said it shows).
    func show(_ picture: VideoFrame)
    /// Closes the window; idempotent, from one owner.
    func close()
}

/// What the viewer asked for in the player window (keys, closing it), as ffplay maps its keys.
public enum WindowInput: Sendable, Equatable {
    /// Space or p.
    case togglePause
    /// Seek by this many seconds (−/+10 for ←/→, −/+60 for ↓/↑).
    case seek(by: Double)
    /// Change the volume by this step (−/+0.1 for 9/0).
    case volume(by: Float)
    /// m.
    case toggleMute
    /// q, Esc, or the window was closed.
    case quit
}
