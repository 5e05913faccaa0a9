"""The package's Python: MongoDB documents brought to one normal form and their patches folded,
run by Spark SQL's `transform` clause (`transform.py`, macro `_cdc_python_transform`). Pure
standard library: nothing to install or register."""
