/// Which cards a Klondike game deals: the protocol's shuffle of a seed, or a given order.
public enum KlondikeDeal: Sendable, Equatable {
    case seed(UInt64)
    case deck([Card])
}
