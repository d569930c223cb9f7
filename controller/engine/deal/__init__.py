"""Deal plans and the deal validator (UTH-11, MD-S1..S3)."""
