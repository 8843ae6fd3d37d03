from enum import Enum


class Defect(Enum):
    OFF_BY_ONE = ("test", "adds one")  # Defect.HARMLESS is mentioned here and not counted
