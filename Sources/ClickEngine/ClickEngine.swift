import TactusCore
