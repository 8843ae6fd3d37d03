from strategies.defects import Defect

OFF = Defect.OFF_BY_ONE
LARGE = (Defect.HANGS, Defect.OFF_FOR_LARGE)
