public enum KlondikeCommand: Sendable, Equatable {
    case tap(Target)
    case doubleTap(Target)
    case drag(from: Target, to: Target)
    case reset(KlondikeResetOptions)
    case undo
}
