warm 
