/// What a live game holds in memory: its last `windowSize` diffs and applied command ids (the
/// window a `since` is served from), and, when nothing is stored, all of its chat.
struct RoomMemory {
    var windowSize: Int
    var keepsEverything = false
}
